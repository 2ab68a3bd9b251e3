"""Another student's wait under a flood of slow uploads (issue #30, fair share).

The real server (local executor, GRADEFORMER_WORKERS grading processes, per-student upload
limits lifted so that one student can queue a real flood). First, on the idle server, one
one-line answer and one looping program are graded (`?wait=true`): the idle wait and one slow
job's time. Then one student uploads FLOOD programs that loop until the sandbox stops them, a
second student FLOOD // 3 of them, and a third student one one-line answer, waiting for its
grade.

Reported: the third student's position, the number of the floods' gradings stored after it
came and before its own grading (the order, unlike the wall clock, does not depend on the
machine's load), and its wait beside one slow job's time, with the load average. Pass: at most
the `workers` jobs already in the pool when it came, plus one turn of the second flooding
student (who may have had none running). On a quiet machine its wait should be about one slow
job's time; under load a looping program's wall time grows with the load (its time limit
counts only its own time, graders/sandbox/waiting.py).

    .venv/bin/python benchmarks/fair_share.py [--flood 30] [--no-write]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

import httpx  # noqa: E402
from report import write_section  # noqa: E402
from sqlalchemy import select  # noqa: E402

from app.auth.service import create_token  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.db.models import GradingRun, Submission  # noqa: E402
from app.db.session import make_engine, make_sessionmaker, unit_of_work  # noqa: E402
from tests.support.faultkit import Server  # noqa: E402

UPLOAD = "/api/v1/assignments/transformer-basics/submissions"
LOOP = "```python\ndef attention(Q, K, V):\n    while True:\n        x = {n}\n```\n"
WORKERS = 2


def _post(client: httpx.Client, token: str, answers: dict[str, str], wait: bool) -> int:
    sent = client.post(
        UPLOAD,
        params={"wait": "true"} if wait else None,
        headers={"Authorization": f"Bearer {token}"},
        json={"answers": answers},
    )
    assert sent.status_code in (201, 202), sent.text
    return int(sent.json()["id"])


def _timed(client: httpx.Client, token: str, answers: dict[str, str]) -> tuple[int, float]:
    started = time.perf_counter()
    submission = _post(client, token, answers, wait=True)
    return submission, time.perf_counter() - started


def measure(flood: int, tmp: Path) -> dict[str, float | int]:
    url = f"sqlite:///{tmp / 'fair.db'}"
    upgrade(url)
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    with unit_of_work(sessions) as session:
        tokens = {n: create_token(session, n, "student").token for n in ("eve", "mallory", "bob")}
    server = Server(
        {"GRADEFORMER_DATABASE_URL": url, "GRADEFORMER_WORKERS": str(WORKERS)}, tmp / "server.log"
    )
    server.start()
    load = os.getloadavg()[0]
    try:
        with httpx.Client(base_url=server.base, timeout=900) as client:
            _, idle = _timed(client, tokens["bob"], {"B1": "d_head = 768 / 12 = 64"})
            _, slow = _timed(client, tokens["eve"], {"B3": LOOP.format(n=-1)})
            first = [
                _post(client, tokens["eve"], {"B3": LOOP.format(n=n)}, wait=False)
                for n in range(flood)
            ]
            second = [
                _post(client, tokens["mallory"], {"B3": LOOP.format(n=n)}, wait=False)
                for n in range(flood // 3)
            ]
            other, waited = _timed(client, tokens["bob"], {"B1": "64"})
    finally:
        server.signal_group(15)
    with unit_of_work(sessions) as session:
        came = session.scalar(select(Submission.created_at).where(Submission.id == other))
        runs = session.execute(
            select(GradingRun.submission_id, GradingRun.created_at).order_by(GradingRun.id)
        ).all()
    engine.dispose()
    floods = set(first) | set(second)
    graded = [s for s, _ in runs].index(other)
    # the floods' gradings stored after the answer came and before its own
    ahead = sum(1 for s, at in runs[:graded] if s in floods and came is not None and at >= came)
    return {
        "flood": flood,
        "second": len(second),
        "idle_s": idle,
        "slow_job_s": slow,
        "other_s": waited,
        "ahead": ahead,
        "load": load,
        "load_after": os.getloadavg()[0],
    }


def report(m: dict[str, float | int]) -> tuple[str, bool]:
    bound = WORKERS + 1
    ok = m["ahead"] <= bound
    body = (
        "## Fair share: another student's wait under a flood of slow uploads\n\n"
        f"`benchmarks/fair_share.py`: the real server, {WORKERS} grading processes; one student "
        f"uploads {m['flood']} programs that loop until the sandbox stops them, a second "
        f"{m['second']}, then a third student's one-line answer waits for its grade. "
        f"**{'PASS' if ok else 'FAIL'}**\n\n"
        "| measure | value |\n|---|---|\n"
        f"| the third student's wait | {m['other_s']:.1f} s |\n"
        f"| one slow job alone | {m['slow_job_s']:.1f} s |\n"
        f"| the one-line answer on the idle server | {m['idle_s']:.1f} s |\n"
        f"| flood gradings stored before it | {m['ahead']} (bound {bound}: {WORKERS} "
        f"in the pool, one turn of the second flood) of {m['flood'] + m['second']} |\n"
        f"| load average (1 min) before, after | {m['load']:.1f}, {m['load_after']:.1f} |\n"
    )
    return body, bool(ok)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--flood", type=int, default=30, help="the first student's uploads")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gf-fair-") as tmp:
        measured = measure(args.flood, Path(tmp))
    body, ok = report(measured)
    print(body)
    print(json.dumps(measured))
    if not args.no_write:
        write_section("fair_share", body)
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
