"""Throughput of `gradeformer grade-table` on a table of real short answers.

The table is the Mohler short answers (../shared/data/mohler, 2,273 rows, reference answers
only), written to a temporary CSV with a rubric of its 81 questions; the real CLI runs in a
child process (`python -m app.cli.main grade-table`):
- cold: the table once, in a fresh process (empty embedding cache; the model load is included
  in the wall time and reported apart);
- warm: the same table repeated ten times (22,730 rows) in one process; the nine repeats find
  their embeddings cached, so (time of 10x - time of 1x) / (9 x rows) is the warm rate.
Peak memory (max RSS of the child) is reported for both.

Usage: python benchmarks/grade_table.py [--data PATH] [--no-write]
"""

from __future__ import annotations

import argparse
import csv
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


def _run(table: Path, rubric: Path, out: Path) -> tuple[float, float]:
    """Wall seconds of the CLI and its peak memory (MB)."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS=os.environ.get("OPENBLAS_NUM_THREADS", "2"))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "app.cli.main", "grade-table", str(table),
                    "--rubric", str(rubric), "--output", str(out), "--no-progress"],
                   cwd=ROOT, env=env, check=True)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return seconds, peak


def _startup(rubric: Path, folder: Path) -> float:
    """Wall seconds of the CLI on a one-row table: process start and model load."""
    table = folder / "one.csv"
    table.write_text("student,question,answer\ns,1.1,x\n")
    return _run(table, rubric, folder / "one.jsonl")[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    if not args.data.exists():
        sys.exit(f"{args.data} not found (the Mohler data lives in ../shared/data/mohler/)")
    with args.data.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        rubric, once, ten = _write_inputs(rows, folder)
        startup = _startup(rubric, folder)
        cold, cold_peak = _run(once, rubric, folder / "once.jsonl")
        lines_out = sum(1 for _ in (folder / "once.jsonl").open())
        full, full_peak = _run(ten, rubric, folder / "ten.jsonl")
    n = len(rows)
    warm_rate = (REPEATS - 1) * n / max(full - cold, 1e-9)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    body = "\n".join([
        "## grade-table throughput",
        "",
        f"`gradeformer grade-table` on the Mohler short answers ({n} rows, 81 questions, "
        "reference answers only), the real CLI in a child process, OPENBLAS_NUM_THREADS="
        f"{os.environ.get('OPENBLAS_NUM_THREADS', '2')}; {lines_out} JSON lines written for "
        f"{n} rows.",
        "",
        "| run | rows | wall seconds | rows/s | peak memory (MB) |",
        "|---|---|---|---|---|",
        f"| start-up only (one row: process, rubric, model load) | 1 | {startup:.1f} | - | - |",
        f"| cold: empty embedding cache, whole command | {n} | {cold:.1f} | {n / cold:.0f} | "
        f"{cold_peak:.0f} |",
        f"| cold, start-up left out | {n} | {cold - startup:.1f} | "
        f"{n / max(cold - startup, 1e-9):.0f} | |",
        f"| the table ten times in one process | {REPEATS * n} | {full:.1f} | "
        f"{REPEATS * n / full:.0f} | {full_peak:.0f} |",
        f"| warm: the nine repeats (embeddings cached) | {(REPEATS - 1) * n} | "
        f"{full - cold:.1f} | {warm_rate:.0f} | |",
        "",
        f"Load average {load} on {os.cpu_count()} cores when this run ended (the machine is "
        "shared, so rates vary between runs).",
    ])
    print(body)
    if not args.no_write:
        write_section("grade_table", body)


if __name__ == "__main__":
    main()
