"""Bulk regrade: N stored transformer-basics submissions re-graded by the real CLI.

    python benchmarks/regrade.py [--n 1000] [--workers 2]

Stores N synthetic submissions (JSON and free text, right and wrong answers, code included) in
a fresh SQLite database, runs `gradeformer regrade`, and reports wall time, submissions/s and
the peak resident memory of the whole process tree (CLI + grading workers + sandboxes).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

from proctree import PeakRss  # noqa: E402
from report import write_section  # noqa: E402
from sqlalchemy import func, select  # noqa: E402
from synthetic import submission  # noqa: E402

from app.assignments.service import sync_rubric_dir  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.db.models import GradingRun, Submission  # noqa: E402
from app.db.session import make_engine, make_sessionmaker, unit_of_work  # noqa: E402
from app.submissions.service import accept  # noqa: E402
from app.submissions.upload import Upload  # noqa: E402
from graders.rubric import BUNDLED_RUBRICS  # noqa: E402

SLUG = "transformer-basics"


def store(url: str, n: int) -> float:
    started = time.perf_counter()
    sessions = make_sessionmaker(make_engine(url))
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, BUNDLED_RUBRICS)
    for start in range(0, n, 500):
        with unit_of_work(sessions) as session:
            for index in range(start, min(n, start + 500)):
                raw, name, ctype = submission(index)
                accept(
                    session,
                    SLUG,
                    Upload(raw, name, ctype, name.rsplit(".", 1)[0]),
                    None,
                    10 * 1024 * 1024,
                )
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="gf-regrade-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        upgrade(url)
        stored_s = store(url, args.n)
        print(f"stored {args.n} submissions in {stored_s:.1f} s", flush=True)
        env = {
            **os.environ,
            "GRADEFORMER_DATABASE_URL": url,
            "GRADEFORMER_WORKERS": str(args.workers),
        }
        cli = Path(sys.executable).with_name("gradeformer")
        started = time.perf_counter()
        process = subprocess.Popen(
            [str(cli), "regrade", "--assignment", SLUG],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        with PeakRss(process.pid) as rss:
            out, err = process.communicate()
        elapsed = time.perf_counter() - started
        if process.returncode != 0:
            raise SystemExit(f"regrade failed ({process.returncode}):\n{out}\n{err}")
        print(out.strip())
        sessions = make_sessionmaker(make_engine(url))
        with unit_of_work(sessions) as session:
            runs = session.scalar(select(func.count(GradingRun.id))) or 0
            statuses = Counter(
                dict(
                    session.execute(
                        select(Submission.status, func.count()).group_by(Submission.status)
                    ).all()
                )
            )
    if runs != args.n:
        raise SystemExit(f"expected {args.n} grading runs, found {runs}")
    rate = args.n / elapsed
    mix = ", ".join(f"{k} {v}" for k, v in sorted(statuses.items()))
    body = (
        "## Bulk regrade (`gradeformer regrade`, local executor, SQLite)\n\n"
        f"| submissions | workers | wall time | submissions/s | peak RSS (tree) | "
        f"peak RSS (largest process) |\n|---|---|---|---|---|---|\n"
        f"| {args.n} | {args.workers} | {elapsed:.1f} s | {rate:.1f} | "
        f"{rss.peak_total_kib / 1024:.0f} MiB | {rss.peak_single_kib / 1024:.0f} MiB |\n\n"
        f"Synthetic transformer-basics submissions (half JSON, half free text; right, partly "
        f"right and wrong answers; B3/B4 code run in the sandbox). Wall time includes the CLI's "
        f"start, worker start-up and every write. Resulting statuses: {mix}. "
        f"Storing the {args.n} uploads beforehand took {stored_s:.1f} s. "
        f"The design target is ≥ 100 submissions/s on 10,000 (`--n 10000`)."
    )
    print(body)
    if not args.no_write:
        print(f"wrote {write_section('regrade', body)}")


if __name__ == "__main__":
    main()
