"""API under concurrent uploads: accepted uploads/s, latency, and nothing lost.

    python benchmarks/api.py [--seconds 20] [--concurrency 32]

Starts the real server (`gradeformer serve`, uvicorn) on a random local port in a subprocess
with a fresh SQLite database, uploads synthetic submissions from many concurrent clients for a
bounded time, then checks that every upload answered 202 is stored.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import httpx

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

from report import write_section  # noqa: E402
from sqlalchemy import func, select  # noqa: E402
from synthetic import submission  # noqa: E402

from app.auth.service import create_token  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.db.models import Submission  # noqa: E402
from app.db.session import make_engine, make_sessionmaker, unit_of_work  # noqa: E402

SLUG = "transformer-basics"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


async def wait_healthy(base: str, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient() as client:
        while time.monotonic() < deadline:
            try:
                if (await client.get(f"{base}/healthz")).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(0.2)
    raise SystemExit("the server did not become healthy")


async def load(
    base: str, tokens: list[str], seconds: float, concurrency: int
) -> tuple[list[float], list[int], int]:
    latencies: list[float] = []
    accepted: list[int] = []
    failures = 0
    kinds: Counter[str] = Counter()
    stop = time.monotonic() + seconds
    limits = httpx.Limits(max_connections=concurrency, max_keepalive_connections=concurrency)
    async with httpx.AsyncClient(base_url=base, limits=limits, timeout=30) as client:

        async def worker(n: int) -> None:
            nonlocal failures
            i = n
            while time.monotonic() < stop:
                raw, _name, ctype = submission(i)
                i += concurrency
                started = time.perf_counter()
                try:
                    response = await client.post(
                        f"/api/v1/assignments/{SLUG}/submissions",
                        content=raw,
                        headers={
                            "content-type": ctype,
                            "authorization": f"Bearer {tokens[i % len(tokens)]}",
                        },
                    )
                except httpx.HTTPError as exc:
                    failures += 1
                    kinds[type(exc).__name__] += 1
                    continue
                latencies.append(time.perf_counter() - started)
                if response.status_code == 202:
                    accepted.append(int(response.json()["id"]))
                else:
                    failures += 1
                    kinds[f"{response.status_code}: {response.text[:200]}"] += 1

        await asyncio.gather(*(worker(n) for n in range(concurrency)))
    for kind, count in kinds.most_common(5):
        print(f"error x{count}: {kind}", file=sys.stderr)
    return latencies, accepted, failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="gf-api-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'api.db'}"
        upgrade(url)
        sessions = make_sessionmaker(make_engine(url))
        with unit_of_work(sessions) as session:
            tokens = [create_token(session, f"s{i:03d}", "student").token for i in range(50)]
        port = free_port()
        env = {
            **os.environ,
            "GRADEFORMER_DATABASE_URL": url,
            "GRADEFORMER_WORKERS": str(args.workers),
        }
        cli = Path(sys.executable).with_name("gradeformer")
        server = subprocess.Popen(
            [str(cli), "serve", "--host", "127.0.0.1", "--port", str(port)],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            asyncio.run(wait_healthy(base))
            started = time.perf_counter()
            latencies, accepted, failures = asyncio.run(
                load(base, tokens, args.seconds, args.concurrency)
            )
            elapsed = time.perf_counter() - started
        finally:
            server.terminate()
            try:
                server.wait(timeout=60)
            except subprocess.TimeoutExpired:
                server.kill()
        with unit_of_work(sessions) as session:
            stored = set(session.scalars(select(Submission.id)))
            mix = Counter(
                dict(
                    session.execute(
                        select(Submission.status, func.count()).group_by(Submission.status)
                    ).all()
                )
            )
        graded = sum(n for status, n in mix.items() if status not in ("queued", "grading"))
    lost = sorted(set(accepted) - stored)
    quantiles = statistics.quantiles(latencies, n=100) if len(latencies) > 1 else [0.0] * 99
    p50, p95 = quantiles[49] * 1000, quantiles[94] * 1000
    rate = len(accepted) / elapsed
    body = (
        "## API uploads under load (`gradeformer serve`, uvicorn, SQLite)\n\n"
        "| clients | duration | accepted | accepted/s | p50 | p95 | errors | lost |\n"
        "|---|---|---|---|---|---|---|---|\n"
        f"| {args.concurrency} | {elapsed:.1f} s | {len(accepted)} | {rate:.0f} | "
        f"{p50:.0f} ms | {p95:.0f} ms | {failures} | {len(lost)} |\n\n"
        f"Each upload is a synthetic transformer-basics submission (JSON or text) from one of "
        f"50 student tokens; the server grades in the background on {args.workers} worker "
        f"processes on the same 2 cores while it accepts uploads; {graded} of the "
        f"{len(stored)} stored submissions were graded once the server had shut down (shutdown "
        f"drains the grading queue) "
        f"({', '.join(f'{k} {v}' for k, v in sorted(mix.items()))}). Lost = answered "
        f"202 but absent from the database afterwards. Targets: ≥ 200 uploads/s, p95 ≤ 100 ms."
    )
    print(body)
    if lost:
        raise SystemExit(f"lost submissions: {lost[:20]}")
    if not args.no_write:
        print(f"wrote {write_section('api', body)}")


if __name__ == "__main__":
    main()
