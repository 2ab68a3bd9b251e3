"""The HTTP edge under abuse: /healthz stays fast and the server process stays small.

    python benchmarks/edge.py [--scale 1.0] [--healthz-limit 1.0] [--no-write]

Starts the real server (`gradeformer serve`, one grading process) on a fresh SQLite database,
then runs three floods while a prober asks /healthz every 50 ms and a sampler reads the server
process's resident memory every 20 ms:

- bodies: 64 MiB request bodies without a token, declared (Content-Length) and chunked, to the
  token route (parses JSON first) and the upload route (checks the token first);
- regrade: 75 concurrent regrade requests (and dry runs) for an assignment with stored
  submissions, until the job they share has finished;
- pdf: 40 concurrent PDF uploads, readable and malformed, until every one is answered.

Pass: /healthz always 200 and never slower than 1 s (`--healthz-limit`: the suite stretches it by
the machine's pace, tests/support/pace.py) and the server's RSS never more than 50 MB above its
warmed-up baseline, in every phase. Exit status 1 otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

import httpx  # noqa: E402
from report import write_section  # noqa: E402

from app.auth.service import create_token  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.db.session import make_engine, make_sessionmaker, unit_of_work  # noqa: E402
from tests.app.pdfs import text_pdf  # noqa: E402
from tests.support.ports import free_port  # noqa: E402

SLUG = "transformer-basics"
UPLOAD = f"/api/v1/assignments/{SLUG}/submissions"
MIB = 1024 * 1024
HEALTHZ_LIMIT_S = 1.0
RSS_LIMIT_MB = 50.0


@dataclass
class Phase:
    name: str
    requests: int
    statuses: Counter[int]
    seconds: float
    healthz_max_s: float
    healthz_p50_s: float
    healthz_unhealthy: int  # probes answered other than 200 (a held write lock: 503)
    rss_growth_mb: float
    healthz_limit_s: float = HEALTHZ_LIMIT_S

    @property
    def ok(self) -> bool:
        return (self.healthz_max_s <= self.healthz_limit_s and not self.healthz_unhealthy
                and self.rss_growth_mb <= RSS_LIMIT_MB)



def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


async def _huge_body(port: int, path: str, chunked: bool, size: int) -> int:
    """Send up to `size` bytes without a token, stopping once the server has answered; the
    status it answered with (0: none before it closed the connection)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    framing = "Transfer-Encoding: chunked" if chunked else f"Content-Length: {size}"
    head = f"POST {path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n{framing}\r\n\r\n"
    writer.write(head.encode())
    answer = asyncio.create_task(reader.readline())
    chunk = b"{" + b" " * (MIB - 1)
    try:
        for _ in range(size // MIB):
            if answer.done():
                break
            writer.write(f"{MIB:x}\r\n".encode() + chunk + b"\r\n" if chunked else chunk)
            await writer.drain()
        if chunked and not answer.done():
            writer.write(b"0\r\n\r\n")
            await writer.drain()
    except (ConnectionError, OSError):
        pass
    try:
        line = await asyncio.wait_for(answer, 30)
        status = int(line.split()[1]) if line.startswith(b"HTTP/1.1") else 0
    except (ConnectionError, OSError, TimeoutError, ValueError, IndexError):
        status = 0
    writer.close()
    return status


async def bodies_flood(port: int, _token: str, scale: float) -> list[int]:
    size = 64 * MIB
    jobs = [
        _huge_body(port, path, chunked, size)
        for path in ("/api/v1/tokens", UPLOAD)
        for chunked in (False, True)
        for _ in range(max(1, round(2 * scale)))
    ]
    return list(await asyncio.gather(*jobs))


async def regrade_flood(port: int, token: str, scale: float) -> list[int]:
    headers = {"Authorization": f"Bearer {token}"}
    url = f"http://127.0.0.1:{port}/api/v1/assignments/{SLUG}/regrade"
    async with httpx.AsyncClient(timeout=120, limits=httpx.Limits(max_connections=100)) as client:
        answers = await asyncio.gather(
            *[client.post(url, headers=headers) for _ in range(max(2, round(75 * scale)))],
            *[client.post(url, params={"dry_run": "true"}, headers=headers)
              for _ in range(max(1, round(5 * scale)))],
        )
        jobs = {a.json()["id"] for a in answers if a.status_code == 202}
        for job in jobs:  # the phase lasts until the shared job is done
            while (await client.get(f"http://127.0.0.1:{port}/api/v1/regrades/{job}",
                                    headers=headers)).json()["status"] == "running":
                await asyncio.sleep(0.2)
    return [a.status_code for a in answers]


async def pdf_flood(port: int, token: str, scale: float) -> list[int]:
    headers = {"Authorization": f"Bearer {token}"}
    readable = text_pdf([f"B1 answer d_head = {n}" for n in range(20)])
    broken = b"%PDF-1.7\n" + b"1 0 obj << /Type /Pages /Kids [1 0 R] >> endobj\n" * 2000
    count = max(4, round(40 * scale))
    documents = [readable if n % 4 else broken for n in range(count)]
    async with httpx.AsyncClient(timeout=120, limits=httpx.Limits(max_connections=100)) as client:
        answers = await asyncio.gather(*[
            client.post(f"http://127.0.0.1:{port}{UPLOAD}", headers=headers,
                        files={"file": ("answers.pdf", body, "application/pdf")})
            for body in documents
        ])
    return [a.status_code for a in answers]


async def measure(
    name: str,
    pid: int,
    port: int,
    baseline_mb: float,
    flood: Callable[[], Awaitable[list[int]]],
    limit_s: float = HEALTHZ_LIMIT_S,
) -> Phase:
    latencies: list[float] = []
    unhealthy = 0
    peak = baseline_mb
    done = asyncio.Event()

    async def probe() -> None:
        nonlocal unhealthy
        async with httpx.AsyncClient(timeout=30) as client:
            while not done.is_set():
                started = time.perf_counter()
                answer = await client.get(f"http://127.0.0.1:{port}/healthz")
                latencies.append(time.perf_counter() - started)
                unhealthy += answer.status_code != 200
                await asyncio.sleep(0.05)

    async def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, rss_mb(pid))
            await asyncio.sleep(0.02)

    started = time.perf_counter()
    tasks = [asyncio.create_task(probe()), asyncio.create_task(sample())]
    statuses = await flood()
    seconds = time.perf_counter() - started
    done.set()
    await asyncio.gather(*tasks)
    latencies.sort()
    return Phase(
        name, len(statuses), Counter(statuses), seconds, latencies[-1],
        latencies[len(latencies) // 2], unhealthy, peak - baseline_mb, limit_s,
    )


async def _warm_up(port: int, token: str, submissions: int) -> None:
    """Everything a flood touches once (imports, pools, caches), then the stored submissions
    a regrade works on."""
    headers = {"Authorization": f"Bearer {token}"}
    base = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(timeout=120) as client:
        for n in range(submissions):
            answers = {"B1": str(n), "A1": "The scaling keeps the softmax from saturating."}
            await client.post(f"{base}{UPLOAD}", params={"wait": "true", "student": f"s{n}"},
                              headers=headers, json={"answers": answers})
        await client.post(f"{base}{UPLOAD}", headers=headers,
                          files={"file": ("a.pdf", text_pdf(["B1: 64"]), "application/pdf")})
        job = (await client.post(f"{base}/api/v1/assignments/{SLUG}/regrade",
                                 headers=headers)).json()
        while job["status"] == "running":
            await asyncio.sleep(0.2)
            job = (await client.get(f"{base}{job['status_url']}", headers=headers)).json()
        # Answered 413 and closed while the body is still going out: either outcome is fine.
        with contextlib.suppress(httpx.HTTPError):
            await client.post(f"{base}/api/v1/tokens", content=b"x" * MIB)


async def run(pid: int, port: int, token: str, scale: float, limit_s: float) -> list[Phase]:
    await _warm_up(port, token, max(4, round(40 * scale)))
    await asyncio.sleep(1)
    baseline = rss_mb(pid)
    floods: list[tuple[str, Callable[[int, str, float], Awaitable[list[int]]]]] = [
        ("bodies", bodies_flood), ("regrade", regrade_flood), ("pdf", pdf_flood),
    ]
    phases = []
    for name, flood in floods:
        phases.append(await measure(
            name, pid, port, baseline, lambda f=flood: f(port, token, scale),  # type: ignore[misc]
            limit_s,
        ))
    return phases


async def wait_healthy(port: int, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    async with httpx.AsyncClient(timeout=5) as client:
        while True:
            try:
                if (await client.get(f"http://127.0.0.1:{port}/healthz")).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            if time.monotonic() > deadline:
                raise SystemExit("the server did not start")
            await asyncio.sleep(0.2)


def report(phases: list[Phase], scale: float, limit_s: float) -> str:
    rows = [
        "| phase | requests | answers | seconds | /healthz max | /healthz p50 "
        "| /healthz not 200 | server RSS growth |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for p in phases:
        answers = ", ".join(f"{code}×{n}" for code, n in sorted(p.statuses.items()))
        rows.append(
            f"| {p.name} | {p.requests} | {answers} | {p.seconds:.1f} | "
            f"{p.healthz_max_s * 1000:.0f} ms | {p.healthz_p50_s * 1000:.0f} ms | "
            f"{p.healthz_unhealthy} | {p.rss_growth_mb:+.1f} MB |"
        )
    verdict = "PASS" if all(p.ok for p in phases) else "FAIL"
    return (
        "## HTTP edge under abuse\n\n"
        f"Scale {scale:g}: 64 MiB unauthenticated bodies (declared and chunked), a flood of "
        "regrade requests on one assignment (until its job is done), and a flood of PDF uploads "
        "(readable and malformed), each while /healthz is probed every 50 ms. Limits: /healthz "
        f"200 within {limit_s:.2g} s, server RSS ≤ +{RSS_LIMIT_MB:g} MB over the warmed-up "
        f"baseline. **{verdict}**\n\n" + "\n".join(rows) + "\n\nAnswer `0`: the server answered "
        "413 and closed the connection while the client was still sending, so the client never "
        "read the status line (nothing of the body was kept)."
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the full floods")
    parser.add_argument("--healthz-limit", type=float, default=HEALTHZ_LIMIT_S,
                        help="slowest /healthz answer allowed, in seconds")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="gf-edge-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'edge.db'}"
        upgrade(url)
        engine = make_engine(url)
        with unit_of_work(make_sessionmaker(engine)) as session:
            token = create_token(session, "prof", "instructor").token
        engine.dispose()
        port = free_port()
        env = {**os.environ, "GRADEFORMER_DATABASE_URL": url, "GRADEFORMER_WORKERS": "1"}
        server = subprocess.Popen(
            [sys.executable, "-m", "app.cli.main", "serve", "--port", str(port)],
            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            asyncio.run(wait_healthy(port))
            phases = asyncio.run(run(server.pid, port, token, args.scale,
                                     args.healthz_limit))
        finally:
            server.terminate()
            server.wait(60)
    body = report(phases, args.scale, args.healthz_limit)
    print(body)
    print(json.dumps([{"phase": p.name, "ok": p.ok} for p in phases]))
    if not args.no_write:
        write_section("edge", body)
    if not all(p.ok for p in phases):
        raise SystemExit(1)


if __name__ == "__main__":
    main()
