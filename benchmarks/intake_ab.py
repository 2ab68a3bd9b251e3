"""API uploads before and after a change to the upload path, side by side, in alternating rounds.

    python benchmarks/intake_ab.py --before DIR [--rounds 3] [--seconds 10] [--no-write]

DIR is a checkout of the code to compare with (e.g. `git archive <commit> | tar -x -C DIR`).
Each round starts the real server (`gradeformer serve`, fresh SQLite database) once with DIR's
code and once with this checkout's (PYTHONPATH), and drives both with benchmarks/api.py's load
generator: an open loop at --rate uploads/s, then a closed loop on --concurrency connections.
Unlike benchmarks/api.py it does not wait for the backlog to be graded (the machine is shared:
that wait is long and measures the graders); it checks that every upload answered 202 is stored.
The machine is noisy, so the two sides alternate and the table shows every round.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

from api import build_requests, cpu_seconds, load, stop_server, wait_healthy  # noqa: E402
from report import write_section  # noqa: E402
from sqlalchemy import select  # noqa: E402

from app.auth.service import create_token  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.db.models import Submission  # noqa: E402
from app.db.session import make_engine, make_sessionmaker, unit_of_work  # noqa: E402
from tests.support.ports import free_port  # noqa: E402


def one_side(code: Path, args: argparse.Namespace) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="gf-ab-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'api.db'}"
        upgrade(url)
        engine = make_engine(url)
        sessions = make_sessionmaker(engine)
        with unit_of_work(sessions) as session:
            tokens = [create_token(session, f"s{i:03d}", "student").token for i in range(50)]
        port = free_port()
        requests = build_requests(tokens, port)
        env = {
            **os.environ,
            "PYTHONPATH": str(code),
            "GRADEFORMER_DATABASE_URL": url,
            "GRADEFORMER_WORKERS": str(args.workers),
            "GRADEFORMER_UPLOADS_IN_PROGRESS": "1000",
            "GRADEFORMER_UPLOADS_PER_MINUTE": "1000000",
            "GRADEFORMER_UPLOAD_BURST": "1000000",
            "GRADEFORMER_STUDENT_QUOTA_BYTES": str(1 << 40),
        }
        server = subprocess.Popen(
            [str(Path(sys.executable).with_name("gradeformer")), "serve", "--host", "127.0.0.1",
             "--port", str(port)],
            cwd=code, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            asyncio.run(wait_healthy(port, timeout=300))  # a loaded machine starts slowly
            time.sleep(1)
            load_before = os.getloadavg()[0]
            cpu0 = cpu_seconds(server.pid)
            opened = asyncio.run(load(port, requests, args.seconds, args.concurrency,
                                      rate=args.rate))
            cpu1 = cpu_seconds(server.pid)
            closed = asyncio.run(load(port, requests, args.seconds, args.concurrency,
                                      first=10**6))
            cpu2 = cpu_seconds(server.pid)
        finally:
            stop_server(server)
        with unit_of_work(sessions) as session:
            stored = set(session.scalars(select(Submission.id)))
        engine.dispose()
    accepted = set(opened.accepted) | set(closed.accepted)

    def p(latencies: list[float], q: int) -> float:
        return statistics.quantiles(latencies, n=100)[q - 1] * 1000 if len(latencies) > 1 else 0

    return {
        "open_per_s": len(opened.accepted) / opened.elapsed,
        "open_p50": p(opened.latencies, 50), "open_p95": p(opened.latencies, 95),
        "closed_per_s": len(closed.accepted) / closed.elapsed,
        "closed_p95": p(closed.latencies, 95),
        "cpu_ms": 1000 * (cpu2 - cpu0) / max(1, len(accepted)),
        "errors": sum(opened.failures.values()) + sum(closed.failures.values()),
        "lost": len(accepted - stored),
        "load": load_before,
        "open_cpu_ms": 1000 * (cpu1 - cpu0) / max(1, len(opened.accepted)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--rate", type=float, default=200)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--label", default="", help="what 'before' is, for the table")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rows = []
    sides: dict[str, list[dict[str, float]]] = {"before": [], "after": []}
    for round_ in range(1, args.rounds + 1):
        for name, code in (("before", args.before.resolve()), ("after", REPO)):
            r = one_side(code, args)
            sides[name].append(r)
            rows.append(
                f"| {round_} | {name} | {r['open_per_s']:.0f} | {r['open_p50']:.0f} ms | "
                f"{r['open_p95']:.0f} ms | {r['closed_per_s']:.0f} | {r['closed_p95']:.0f} ms | "
                f"{r['cpu_ms']:.2f} | {r['errors']:.0f} | {r['lost']:.0f} | {r['load']:.1f} |")
            print(rows[-1], flush=True)

    def median(name: str, key: str) -> float:
        return statistics.median(r[key] for r in sides[name])

    summary = ", ".join(
        f"{key}: {median('before', key):.1f} → {median('after', key):.1f}"
        for key in ("closed_per_s", "open_p95", "cpu_ms"))
    body = (
        "## Uploads before and after reading every document outside the server\n\n"
        f"`benchmarks/intake_ab.py`, before = {args.label or args.before}: the real server with "
        f"{args.workers} grading processes, {args.seconds:g} s open loop at {args.rate:g}/s, "
        f"then {args.seconds:g} s closed loop on {args.concurrency} connections (benchmarks/"
        "api.py's synthetic JSON and free-text uploads from 50 students), the two sides "
        "alternating.\n\n"
        "| round | code | open loop accepted/s | p50 | p95 | closed loop accepted/s | p95 | "
        "server CPU ms/upload | errors | lost | load average |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|\n" + "\n".join(rows) + "\n\n"
        f"Medians, before → after: {summary}.\n"
    )
    print(body)
    if not args.no_write:
        write_section("intake_ab", body)


if __name__ == "__main__":
    main()
