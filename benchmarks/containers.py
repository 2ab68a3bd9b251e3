"""Grading throughput on containers: one and two worker containers (Celery, PostgreSQL, Redis,
deploy/compose.yaml) beside the single-process local executor on the host.

    python benchmarks/containers.py [--count 40] [--no-write]

Run by `make docker-test DOCKER_BENCH=1` after the checks, or alone once scripts/docker-test.sh
has built the images. Each configuration grades the same `--count` synthetic submissions
(numeric, written and code answers; tests/support/synthetic.py) uploaded at once, with the result
cache off so that every program runs in the sandbox; the time runs from the first upload until
the last one is final.
Every worker container runs one grading process (GRADEFORMER_WORKERS=1), like the local
executor. A warm-up submission first (models loaded, zygote started) is not counted.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from statistics import median

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

import httpx  # noqa: E402
from report import write_section  # noqa: E402
from sqlalchemy import select  # noqa: E402

from app.auth.service import create_token  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.db.models import GradingRun, Submission  # noqa: E402
from app.db.session import make_engine, make_sessionmaker, unit_of_work  # noqa: E402
from tests.docker.stack import Stack, upload  # noqa: E402
from tests.support.ports import free_port  # noqa: E402
from tests.support.synthetic import submission  # noqa: E402

FINAL = {"graded", "needs_review", "pending", "grader_error", "error"}
SETTINGS = {"GRADEFORMER_RESULT_CACHE": "false", "GRADEFORMER_WORKERS": "1",
            "GRADEFORMER_UPLOADS_PER_MINUTE": "1000000", "GRADEFORMER_UPLOAD_BURST": "1000000",
            "GRADEFORMER_UPLOADS_IN_PROGRESS": "1000",
            "GRADEFORMER_STUDENT_QUOTA_BYTES": str(1 << 40)}


def timed(base: str, token: str, first: int, count: int,
          statuses: Callable[[list[int]], dict[int, str]]) -> tuple[float, list[int]]:
    """Upload `count` submissions and wait until all are final: seconds taken, and their ids."""
    started = time.monotonic()
    ids: list[int] = []
    with httpx.Client(base_url=base) as client:
        for n in range(first, first + count):
            raw, _, content_type = submission(n)
            accepted = upload(client, token, raw, content_type)
            if accepted is None:
                raise SystemExit(f"upload {n} was refused")
            ids.append(accepted)
    while True:
        found = statuses(ids)
        if all(found.get(i) in FINAL for i in ids):
            return time.monotonic() - started, ids
        if time.monotonic() - started > 1800:
            raise SystemExit("not graded within 30 minutes")
        time.sleep(0.5)


def local(count: int) -> tuple[float, float]:
    """The host's `gradeformer serve`, local executor, one grading process, SQLite."""
    folder = Path(tempfile.mkdtemp(prefix="bench-local-"))
    url = f"sqlite:///{folder / 'db.sqlite'}"
    upgrade(url)
    port = free_port()
    env = {**os.environ, **SETTINGS, "GRADEFORMER_DATABASE_URL": url,
           "GRADEFORMER_EMBEDDING_CACHE_DIR": str(folder / "emb")}
    server = subprocess.Popen([str(REPO / ".venv" / "bin" / "gradeformer"), "serve", "--host",
                               "127.0.0.1", "--port", str(port)], env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    try:
        base = f"http://127.0.0.1:{port}"
        for _ in range(120):
            try:
                if httpx.get(base + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            time.sleep(0.5)
        with unit_of_work(sessions) as session:
            token = create_token(session, "s-bench", "student").token

        def statuses(ids: list[int]) -> dict[int, str]:
            with unit_of_work(sessions) as session:
                rows = session.query(Submission.id, Submission.status).filter(
                    Submission.id.in_(ids))
                return {i: s for i, s in rows}

        timed(base, token, 10_000, 1, statuses)  # warm-up
        seconds, ids = timed(base, token, 0, count, statuses)
        with unit_of_work(sessions) as session:
            spent = session.scalars(select(GradingRun.execution_time).where(
                GradingRun.submission_id.in_(ids), GradingRun.is_current))
            return seconds, median(x for x in spent if x is not None)
    finally:
        server.terminate()
        server.wait(30)
        engine.dispose()


def containers(count: int) -> dict[int, tuple[float, float]]:
    stack = Stack(Path(tempfile.mkdtemp(prefix="bench-containers-")), "gfbench", SETTINGS)
    results: dict[int, tuple[float, float]] = {}
    try:
        stack.up(workers=0)
        token = stack.token("s-bench")

        def statuses(ids: list[int]) -> dict[int, str]:
            found = stack.statuses()
            return {i: found[i] for i in ids if i in found}

        for workers in (1, 2):
            stack.scale(workers)
            timed(stack.base, token, 10_000 + workers * 10, workers, statuses)  # warm-up
            seconds, ids = timed(stack.base, token, 0, count, statuses)
            spent = stack.sql("SELECT execution_time FROM grading_runs WHERE is_current AND "
                              f"submission_id IN ({','.join(map(str, ids))})")
            results[workers] = seconds, median(float(x) for (x,) in spent if x)
            stack.scale(0)
    finally:
        stack.down()
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=40)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    load_before = os.getloadavg()[0]
    measured = {"local executor, 1 process (host, SQLite)": local(args.count)}
    for workers, result in containers(args.count).items():
        measured[f"{workers} worker container{'s' if workers > 1 else ''}, 1 process each "
                 "(Celery, PostgreSQL, Redis)"] = result
    rows = "\n".join(f"| {name} | {seconds:.1f} | {args.count / seconds * 60:.1f} | {spent:.2f} |"
                     for name, (seconds, spent) in measured.items())
    body = (
        "## Containers: grading throughput with one and two worker containers\n\n"
        f"{args.count} synthetic submissions (numeric, written and code answers) uploaded at "
        "once, result cache off (every program runs in the sandbox), from the first upload until "
        "the last is final; a warm-up submission first is not counted. The worker containers "
        "run with the privileges of deploy/compose.yaml's `worker` service (every required "
        "sandbox layer active). One machine with 2 cores shared with the API, PostgreSQL, "
        "Redis and other work: a second container adds a grading process, not a core.\n\n"
        "| configuration | seconds | submissions/min | grading s per submission (median) |\n"
        "|---|---:|---:|---:|\n" + rows + "\n\n"
        "The last column is the time the grading process spent on one document (its run's "
        "`execution_time`: locating, grading, the sandbox), the same work in every configuration; "
        "the rest of a submission's share of the wall time is the path around it (a Celery task "
        "claims, reads the rubric version and stores each submission on its own, the local "
        "executor stores in batches from one writer thread) and the other work on the machine.\n\n"
        f"Load average (1 min) on the machine: {load_before:.1f} before, "
        f"{os.getloadavg()[0]:.1f} after (other work shares these 2 cores: with a load above 2 "
        "the second container's process only competes for the same CPU time).\n"
    )
    print(body)
    if not args.no_write:
        print(f"wrote {write_section('containers', body)}")


if __name__ == "__main__":
    main()
