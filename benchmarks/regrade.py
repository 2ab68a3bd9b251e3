"""Bulk regrade: N stored transformer-basics submissions re-graded by the real CLI, with and
without the result cache, after the rubric changes a regrade is typically run for.

    python benchmarks/regrade.py [--n 10000] [--workers 2] [--breakdown 300]

Stores N synthetic submissions (JSON and free text, right and wrong answers, code included) in
a fresh SQLite database, then runs `gradeformer regrade` in one sitting (the machine is shared:
ratios side by side mean more than absolute figures):

1. with the result cache off (how every regrade ran before it);
2. with an empty cache (the first regrade fills it);
3. after a points and feedback change, 4. after a numeric known-mistake edit, 5. after a code
   battery change (each edit kept for the next), all with the cache;
6. the last rubric again with the cache off: its stored scores must equal step 5's.

Each run reports wall time, submissions/s, the CPU time of the whole process tree per
submission (CLI + grading workers + sandboxes: the figure other load disturbs least), peak
memory, and what the CLI says it recomputed.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

from grading_cost import grading_cost  # noqa: E402
from report import write_section  # noqa: E402
from sqlalchemy import func, select  # noqa: E402

from app.assignments.service import sync_rubric_dir  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.db.models import GradingRun, ItemScore, Submission  # noqa: E402
from app.db.session import make_engine, make_sessionmaker, unit_of_work  # noqa: E402
from app.submissions.service import accept  # noqa: E402
from app.submissions.upload import Upload  # noqa: E402
from graders.rubric import BUNDLED_RUBRICS  # noqa: E402
from tests.support.proctree import PeakRss  # noqa: E402
from tests.support.synthetic import submission  # noqa: E402

SLUG = "transformer-basics"
PR_SET_CHILD_SUBREAPER = 36
TICK = os.sysconf("SC_CLK_TCK")


def _adopt_orphans() -> None:
    """Become the subreaper of the CLI's tree: processes it leaves behind (the fork server and
    its workers) are reparented to us, so waiting for them adds their CPU to RUSAGE_CHILDREN."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def _reap_all(timeout_s: float = 30.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            time.sleep(0.05)


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _own_cpu_s(pid: int) -> float | None:
    """utime + stime of one live process (its reaped children not included)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICK


class CliCpu:
    """The CLI's own CPU (storing, diffing, its share of the pool's IPC), last seen alive."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.seconds = 0.0
        self._stop = False

    def sample(self) -> None:
        import threading

        def loop() -> None:
            while not self._stop:
                value = _own_cpu_s(self.pid)
                if value is not None:
                    self.seconds = max(self.seconds, value)
                time.sleep(0.1)

        self._thread = threading.Thread(target=loop, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop = True
        self._thread.join()



RUBRIC = BUNDLED_RUBRICS / "transformer-basics.yaml"
BATTERY = BUNDLED_RUBRICS / "transformer-basics" / "b3.yaml"
BENCH_BATTERY = BATTERY.with_name("bench-b3.yaml")
SQUARE = '{name: "square (n = m = d_k = d_v = 4)", dims: {n: 4, m: 4, d_k: 4, d_v: 4}}'
# Each step's edit of the rubric, kept for the steps after it.
EDITS: dict[str, list[tuple[str, str]]] = {
    "points and feedback": [
        ("points: 3\n        grader: numeric\n        title: 768 x 768",
         "points: 4\n        grader: numeric\n        title: 768 x 768"),
        ("590,592 counts a bias vector", "590,592 includes a bias vector"),
    ],
    "numeric known mistake": [
        ("- value: 49152\n              points: 1", "- value: 49152\n              points: 2"),
    ],
    "code battery": [
        ("battery: transformer-basics/b3.yaml", "battery: transformer-basics/bench-b3.yaml"),
    ],
}


def distinct_code(raw: bytes, name: str) -> bytes:
    """The same submission with a comment naming the student in each program: no two
    submissions share a program (as in a real class), so no sandbox run serves two."""
    stamp = f"# {name}\n"
    if name.endswith(".json"):
        data = json.loads(raw)
        for question in ("B3", "B4"):
            if question in data["answers"]:
                data["answers"][question] = stamp + data["answers"][question]
        return json.dumps(data).encode()
    return raw.replace(b"```python\n", b"```python\n" + stamp.encode())


def store(url: str, n: int, distinct: bool = False) -> float:
    started = time.perf_counter()
    sessions = make_sessionmaker(make_engine(url))
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, BUNDLED_RUBRICS)
    for start in range(0, n, 500):
        with unit_of_work(sessions) as session:
            for index in range(start, min(n, start + 500)):
                raw, name, ctype = submission(index)
                if distinct:
                    raw = distinct_code(raw, name)
                accept(
                    session,
                    SLUG,
                    Upload(raw, name, ctype, name.rsplit(".", 1)[0]),
                    None,
                    10 * 1024 * 1024,
                )
    return time.perf_counter() - started


def use_rubric(url: str, text: str, directory: Path) -> None:
    """Make `text` the assignment's current rubric, as an instructor's edit would."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / RUBRIC.name).write_text(text)
    sessions = make_sessionmaker(make_engine(url))
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, directory)


@contextmanager
def bench_battery() -> Iterator[None]:
    """A changed copy of the B3 battery (one case's shape differs) beside the real one."""
    text = BATTERY.read_text()
    if SQUARE not in text:
        raise SystemExit("the B3 battery changed: update SQUARE in benchmarks/regrade.py")
    BENCH_BATTERY.write_text(text.replace(SQUARE, SQUARE.replace("n: 4, m: 4", "n: 5, m: 4")))
    try:
        yield
    finally:
        BENCH_BATTERY.unlink(missing_ok=True)


def stored_scores(url: str) -> list[tuple[object, ...]]:
    sessions = make_sessionmaker(make_engine(url))
    with unit_of_work(sessions) as session:
        rows = session.execute(
            select(Submission.id, Submission.status, GradingRun.status, GradingRun.total,
                   ItemScore.item_id, ItemScore.points, ItemScore.max_points, ItemScore.status,
                   ItemScore.feedback, ItemScore.student_feedback)
            .join(GradingRun, GradingRun.submission_id == Submission.id)
            .join(ItemScore, ItemScore.run_id == GradingRun.id)
            .where(GradingRun.is_current.is_(True))
            .order_by(Submission.id, ItemScore.position)
        ).all()
    return [tuple(row) for row in rows]


@dataclass
class Run:
    label: str
    n: int
    workers: int
    elapsed: float
    cpu_ms: float
    cli_ms: float
    peak_total_mib: float
    load: tuple[float, float]
    recomputed: str
    mix: str

    @property
    def rate(self) -> float:
        return self.n / self.elapsed


def regrade(label: str, url: str, n: int, workers: int, cache: bool) -> Run:
    env = {
        **os.environ,
        "GRADEFORMER_DATABASE_URL": url,
        "GRADEFORMER_WORKERS": str(workers),
        "GRADEFORMER_RESULT_CACHE": "true" if cache else "false",
        "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    }
    load_before = os.getloadavg()[0]
    cpu_before = _children_cpu_s()
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "app.cli.main", "regrade", "--assignment", SLUG],
        env=env,
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    cli_cpu = CliCpu(process.pid)
    cli_cpu.sample()
    with PeakRss(process.pid) as rss:
        out, err = process.communicate()
    elapsed = time.perf_counter() - started
    load_after = os.getloadavg()[0]
    cli_cpu.stop()
    _reap_all()
    tree_cpu_s = _children_cpu_s() - cpu_before
    if process.returncode != 0:
        raise SystemExit(f"regrade failed ({process.returncode}):\n{out}\n{err}")
    print(f"[{label}] {' '.join(out.split())}", flush=True)
    # The console wraps long lines: the report runs from "recomputed:" to "regraded".
    flat = " ".join(out.split())
    found = re.search(r"recomputed: (.*?) regraded \d", flat)
    recomputed = found.group(1) if found else "?"
    sessions = make_sessionmaker(make_engine(url))
    with unit_of_work(sessions) as session:
        statuses = Counter(dict(session.execute(
            select(Submission.status, func.count()).group_by(Submission.status)).all()))
    return Run(label, n, workers, elapsed, tree_cpu_s / n * 1000, cli_cpu.seconds / n * 1000,
               rss.peak_total_kib / 1024, (load_before, load_after),
               " ".join(recomputed.split()),
               ", ".join(f"{k} {v}" for k, v in sorted(statuses.items())))


def scenarios(n: int, workers: int, distinct: bool) -> tuple[list[Run], bool, float]:
    runs: list[Run] = []
    with tempfile.TemporaryDirectory(prefix="gf-regrade-") as tmp, bench_battery():
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        upgrade(url)
        stored_s = store(url, n, distinct)
        print(f"stored {n} submissions in {stored_s:.1f} s", flush=True)
        runs.append(regrade("cache off (as before)", url, n, workers, cache=False))
        runs.append(regrade("cache on, empty (first regrade)", url, n, workers, cache=True))
        text = RUBRIC.read_text()
        for number, (label, edits) in enumerate(EDITS.items()):
            for old, new in edits:
                if old not in text:
                    raise SystemExit(f"the rubric changed: {old!r} is gone")
                text = text.replace(old, new)
            use_rubric(url, text, Path(tmp) / f"rubrics-{number}")
            runs.append(regrade(f"after a {label} change", url, n, workers, cache=True))
        cached = stored_scores(url)
        runs.append(regrade("same rubric, cache off (check)", url, n, workers, cache=False))
        identical = stored_scores(url) == cached and len(cached) > 0
    return runs, identical, stored_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--breakdown",
        type=int,
        default=0,
        help="submissions graded in this process for the per-grader costs (0: skip)",
    )
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    parser.add_argument("--note", default="", help="a sentence on the conditions of this run")
    parser.add_argument("--distinct-code", action="store_true",
                        help="no two submissions share a program (each names its student)")
    parser.add_argument("--section", default="regrade", help="the docs/benchmarks.md section")
    args = parser.parse_args()
    _adopt_orphans()
    cost = grading_cost(args.breakdown) if args.breakdown else None
    if cost is not None:
        print(cost.table(), flush=True)
    runs, identical, stored_s = scenarios(args.n, args.workers, args.distinct_code)
    base = runs[0]
    rows = "\n".join(
        f"| {r.label} | {r.elapsed:.1f} s | **{r.rate:.0f}** | {r.rate / base.rate:.1f}x | "
        f"{r.cpu_ms:.2f} | {r.cli_ms:.2f} | {r.peak_total_mib:.0f} MiB | "
        f"{r.load[0]:.1f} / {r.load[1]:.1f} | {r.recomputed} |"
        for r in runs
    )
    targets = [
        ("after a points-only change ≥ 2,000/s", runs[2].rate >= 2000, runs[2].rate),
        ("after a numeric known-mistake edit ≥ 600/s", runs[3].rate >= 600, runs[3].rate),
        ("after a code-battery change no slower than without the cache",
         runs[4].rate >= base.rate, runs[4].rate),
    ]
    verdicts = "; ".join(f"{name}: {'met' if ok else 'NOT met'} ({rate:.0f}/s)"
                         for name, ok, rate in targets)
    cores = os.cpu_count() or 1
    body = (
        "## Bulk regrade (`gradeformer regrade`, local executor, SQLite, result cache"
        + (", every program distinct" if args.distinct_code else "") + ")\n\n"
        f"{base.n} synthetic transformer-basics submissions (half JSON, half free text; right, "
        f"partly right and wrong answers; B3/B4 code run in the sandbox"
        + ("; every program carries its student's name in a comment, so no two submissions "
           "share a sandbox run" if args.distinct_code else
           "; the set draws from few programs, and the same program on the same question gets "
           "the same inputs, so one sandbox run serves every submission that has it")
        + f"), {base.workers} "
        "grading processes, every run in one sitting on the same database (rubric edits are "
        "kept for the runs after them):\n\n"
        "| run | wall time | submissions/s | vs cache off | CPU ms / submission (all "
        "processes) | of which the CLI | peak RSS (tree) | load before / after | recomputed "
        "(as the CLI reports it) |\n|---|---|---|---|---|---|---|---|---|\n"
        f"{rows}\n\n"
        f"**Identical results**: the last rubric regraded with the cache off stored "
        + ("exactly the same" if identical else "DIFFERENT")
        + " statuses, totals, item points (Decimal), item statuses and both feedbacks as the "
        "cached regrade before it.\n\n"
        f"Targets: {verdicts}.\n\n"
        "CPU per submission is the whole tree's user + system time (CLI, fork server, grading "
        "workers, zygotes and every sandboxed job, start-up included) over N; load is the "
        f"1-minute average on this shared {cores}-core machine (other engineers' work), which "
        "inflates wall times: compare the runs with each other, and CPU more than wall time. "
        "With the cache, a regrade re-scores outside the grading processes every submission "
        "whose stored run recorded its keys (graders.cache.rescore): unchanged groups keep their "
        "stored rows, a changed numeric group or unanswered question is re-scored on the "
        "located answers read back from the cache, and only what needs the sandbox or the "
        "embedding model (a changed code or written group) goes to the grading processes. "
        "With two or more batches of such submissions the CLI forks one worker per core "
        "after its start-up (app.regrade.batches) and they re-score and store whole batches; "
        "the CLI column is the command's own process only (start-up, imports about 0.9 s of "
        "CPU, and the batches it does itself), the workers are in the whole tree's CPU.\n\n"
        f"Resulting statuses ({runs[-1].n}, last run): {runs[-1].mix}. Storing the uploads "
        f"beforehand took {stored_s:.1f} s."
        + (f" {args.note}" if args.note else "")
    )
    if cost is not None:
        body += (
            f"\n\nWhere an uncached submission's CPU goes (one grading process, {cost.n} of the "
            "same submissions after a warm-up):\n\n" + cost.table()
        )
    print(body)
    if not args.no_write:
        print(f"wrote {write_section(args.section, body)}")


if __name__ == "__main__":
    main()
