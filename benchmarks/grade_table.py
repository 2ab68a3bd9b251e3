"""Throughput of `gradeformer grade-table` on a table of real short answers.

The table is the Mohler short answers (../shared/data/mohler, 2,273 rows, reference answers
only), written to a temporary CSV with a rubric of its 81 questions; the real CLI runs in a
child process (`python -m app.cli.main grade-table`):
- cold: the table once, in a fresh process (empty embedding cache; the model load is included
  in the wall time and reported apart);
- the same table repeated ten times (22,730 rows) in one process, end to end;
- in this process, through the same `TableGrader` the CLI uses: a cold pass, then the same
  answers again (warm: results of repeated answers are kept), and again with that memory off
  (embeddings cached, every row graded anew). Timing inside one process is what separates
  cold from warm on a shared machine; two child processes' wall times are too noisy to
  subtract.
Peak memory (max RSS of the children) and CPU seconds per row (user + system, all threads) are
reported for the CLI runs: on a shared machine CPU time varies much less than wall time. The load
average is taken when the run starts and when it ends.

Then instructor grades in the table (per-question risk control): the held-out assignments 7-12
only, with a `points` column holding the human average for a fixed-seed 20% of each question's
answers (the exemplar split of benchmarks/written_mohler.py); reported on the other 80%: the
share sent to review, the error (more than 1 point from the human average) among the
auto-graded, and Pearson r, next to the same rows without the points column.

Usage: python benchmarks/grade_table.py [--data PATH] [--no-write]
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.report import write_section
from graders.written.calibration import shipped_calibration

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "mohler" / "mohler_dataset_edited.csv"
REPEATS = 10


def _write_inputs(rows: list[dict[str, str]], folder: Path) -> tuple[Path, Path, Path]:
    questions: dict[str, dict[str, object]] = {}
    for row in rows:
        questions.setdefault(row["id"], {
            "id": row["id"], "prompt": row["question"], "items": [{
                "id": f"m{row['id']}", "points": 5, "grader": "written",
                "config": {"reference": [row["desired_answer"]]}}]})
    rubric = folder / "rubric.yaml"
    rubric.write_text(yaml.safe_dump({
        "slug": "mohler", "title": "Mohler", "review_threshold":
        shipped_calibration().threshold_95, "questions": list(questions.values())}))
    tables = []
    for name, repeats in (("once.csv", 1), ("ten.csv", REPEATS)):
        path = folder / name
        with path.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["student", "question", "answer"])
            for copy in range(repeats):
                for i, row in enumerate(rows):
                    writer.writerow([f"s{copy}-{i}", row["id"], row["student_answer"]])
        tables.append(path)
    return rubric, tables[0], tables[1]


def _cpu_children() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _run(table: Path, rubric: Path, out: Path) -> tuple[float, float, float]:
    """Wall seconds of the CLI, its peak memory (MB) and its CPU seconds."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS=os.environ.get("OPENBLAS_NUM_THREADS", "2"))
    cpu = _cpu_children()
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "app.cli.main", "grade-table", str(table),
                    "--rubric", str(rubric), "--output", str(out), "--no-progress"],
                   cwd=ROOT, env=env, check=True)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return seconds, peak, _cpu_children() - cpu


def _startup(rubric: Path, folder: Path) -> tuple[float, float]:
    """Wall and CPU seconds of the CLI on a one-row table: process start and model load."""
    table = folder / "one.csv"
    table.write_text("student,question,answer\ns,1.1,x\n")
    seconds, _, cpu = _run(table, rubric, folder / "one.jsonl")
    return seconds, cpu


def _accuracy(rows: list[dict[str, str]], folder: Path, rubric: Path) -> list[str]:
    """Held-out 7-12, reference only vs 20% instructor-graded rows, reported on the other 80%."""
    from benchmarks.mohler_fit import pearson
    from benchmarks.written_mohler import exemplar_split

    held = [r for r in rows if int(r["id"].split(".")[0]) > 6]
    graded = exemplar_split(held)
    lines = []
    for label, with_points in (("reference only", False), ("20% of each question graded by "
                                                           "the instructor (points column)", True)):
        table = folder / f"held_{with_points}.csv"
        with table.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(["student", "question", "answer", "points"])
            for i, row in enumerate(held):
                given = row["score_avg"] if with_points and graded[i] else ""
                writer.writerow([f"s{i}", row["id"], row["student_answer"], given])
        out = folder / f"held_{with_points}.jsonl"
        _run(table, rubric, out)
        results = [json.loads(line) for line in out.open()]
        machine, human, review = [], [], []
        for i, result in enumerate(results):
            if graded[i]:
                continue
            item = result["items"][0]
            machine.append(float(item["points"]))
            human.append(float(held[i]["score_avg"]))
            review.append(item["status"] == "needs_review")
        wrong = [abs(m - h) > 1 for m, h, r in zip(machine, human, review, strict=True) if not r]
        lines.append(f"| {label} | {len(machine)} | {pearson(machine, human):.3f} | "
                     f"{sum(review) / len(review):.1%} | {sum(wrong) / max(len(wrong), 1):.1%} |")
    return lines


def _in_process(rows: list[dict[str, str]],
                rubric: Path) -> list[tuple[float, float]]:
    """Rows per second and CPU ms per row through TableGrader: cold, warm (repeats kept), warm
    embeddings only."""
    from graders.context import GradingResources
    from graders.rubric import load_rubric
    from graders.written.table import TableGrader, TableRow

    table = [TableRow(f"s{i}", r["id"], r["student_answer"]) for i, r in enumerate(rows)]
    grader = TableGrader(load_rubric(rubric), GradingResources(options={}))
    list(grader.grade(table[:1]))  # loads the model (start-up is measured apart)
    grader.forget()
    rates = []
    for remember in (True, True, False):
        grader.remember = 20_000 if remember else 0
        if not remember:
            grader.forget(embeddings=False)
        start, cpu = time.perf_counter(), time.process_time()
        for _ in grader.grade(table):
            pass
        rates.append((len(table) / (time.perf_counter() - start),
                      1000 * (time.process_time() - cpu) / len(table)))
    return rates


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"{args.data} not found (the Mohler data lives in ../shared/data/mohler/)")
    with args.data.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    load_before = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rubric, once, ten = _write_inputs(rows, folder)
        startup, startup_cpu = _startup(rubric, folder)
        cold, cold_peak, cold_cpu = _run(once, rubric, folder / "once.jsonl")
        lines_out = sum(1 for _ in (folder / "once.jsonl").open())
        full, full_peak, full_cpu = _run(ten, rubric, folder / "ten.jsonl")
        accuracy = _accuracy(rows, folder, rubric)
        (cold_in, cold_in_cpu), (warm_in, warm_in_cpu), (embedded_in, embedded_in_cpu) = (
            _in_process(rows, rubric))
    n = len(rows)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    body = "\n".join([
        "## grade-table throughput",
        "",
        f"`gradeformer grade-table` on the Mohler short answers ({n} rows, 81 questions, "
        "reference answers only), the real CLI in a child process, OPENBLAS_NUM_THREADS="
        f"{os.environ.get('OPENBLAS_NUM_THREADS', '2')}; {lines_out} JSON lines written for "
        f"{n} rows.",
        "",
        "| run | rows | wall seconds | rows/s | CPU ms per row | peak memory (MB) |",
        "|---|---|---|---|---|---|",
        f"| start-up only (one row: process, rubric, model load) | 1 | {startup:.1f} | - | "
        f"{1000 * startup_cpu:.0f} (CPU, whole) | - |",
        f"| cold: empty embedding cache, whole command | {n} | {cold:.1f} | {n / cold:.0f} | "
        f"{1000 * cold_cpu / n:.2f} | {cold_peak:.0f} |",
        f"| cold, start-up left out | {n} | {cold - startup:.1f} | "
        f"{n / max(cold - startup, 1e-9):.0f} | {1000 * (cold_cpu - startup_cpu) / n:.2f} | |",
        f"| the table ten times in one process (CLI, end to end) | {REPEATS * n} | "
        f"{full:.1f} | {REPEATS * n / full:.0f} | {1000 * full_cpu / (REPEATS * n):.2f} | "
        f"{full_peak:.0f} |",
        "",
        "| in one process, the CLI's TableGrader | rows/s | CPU ms per row |",
        "|---|---|---|",
        f"| cold: empty embedding cache | {cold_in:.0f} | {cold_in_cpu:.2f} |",
        f"| warm: the same answers again (repeated answers' results kept) | {warm_in:.0f} | "
        f"{warm_in_cpu:.3f} |",
        f"| warm embeddings only (every row graded anew, vectors cached) | {embedded_in:.0f} | "
        f"{embedded_in_cpu:.2f} |",
        "",
        "Instructor grades in the table, held-out assignments 7-12, reported on the answers "
        "the instructor did not grade (error: more than 1 point from the human average; "
        "target error 5%):",
        "",
        "| table | answers reported | Pearson r | to review | wrong among auto-graded |",
        "|---|---|---|---|---|",
        *accuracy,
        "",
        f"Load average (1, 5, 15 min) {load_before} when this run started and {load} when it "
        f"ended, on {os.cpu_count()} cores (the machine is shared: wall rates vary between runs, "
        "CPU per row much less).",
    ])
    print(body)
    if not args.no_write:
        write_section("grade_table", body)


if __name__ == "__main__":
    main()
