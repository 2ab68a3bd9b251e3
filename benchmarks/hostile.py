"""Hostile students against the server: nobody stalls it, starves another student or crowds
anyone out.

    python benchmarks/hostile.py [--scale 1.0] [--no-write]

Starts the real server (`gradeformer serve`, two grading processes) on a fresh SQLite database
and runs five floods while /healthz is probed every 50 ms from a process of its own:

- documents: one student uploads PDFs disguised as text (behind whitespace, named answers.txt),
  notebooks whose "cells" key is spelt with escapes, 200,000-deep JSON, 5,000-digit integers and
  10 MB of one line (text, and one JSON string);
- many small files: 400 small documents at once on 50 connections (3,000-deep JSON, 400-digit
  integers, malformed JSON, binary text, and plain answers);
- slow uploads: one student uploads programs that loop until the sandbox stops them, then another
  student uploads a one-line answer and waits for its grade: that wait, against one slow job's
  time and against the same answer graded on an idle server;
- sign-ins: a flood of sign-ins with one student's token from one address while an instructor
  holds a browser session: the answers, and whether the instructor is still signed in;
- drip: unauthenticated connections sending their body a byte every 2 s: when each is dropped.

Pass: /healthz never slower than 1 s in any phase; the other student waits at most one slow
job's time (plus the idle grading time); the instructor's session survives; every dripping
connection is dropped by the anonymous whole-body deadline (plus a probe interval).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Awaitable, Callable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

import httpx  # noqa: E402
from edge import Phase, rss_mb, wait_healthy  # noqa: E402
from report import write_section  # noqa: E402

from app.auth.service import create_token  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.db.session import make_engine, make_sessionmaker, unit_of_work  # noqa: E402
from tests.app.pdfs import text_pdf  # noqa: E402
from tests.support.ports import free_port  # noqa: E402

SLUG = "transformer-basics"
UPLOAD = f"/api/v1/assignments/{SLUG}/submissions"
ANONYMOUS_DEADLINE_S = 10.0
MIB = 1024 * 1024
LOOP = "```python\ndef attention(Q, K, V):\n    while True:\n        pass\n```\n"


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


async def documents_flood(base: str, token: str, scale: float) -> list[int]:
    pdf = text_pdf([f"B1 answer {n}" for n in range(3)])
    notebook = (b'{"\\u0063ells": [{"cell_type": "markdown", "source": "B1: 64", '
                b'"metadata": {}}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')
    kinds = [
        ("answers.txt", b" " * 1100 + pdf, "text/plain"),
        ("answers.json", notebook, "application/json"),
        ("answers.json", b'{"answers": {"B1": ' + b"[" * 200_000 + b"]" * 200_000 + b"}}",
         "application/json"),
        ("answers.json", b'{"answers": {"B1": ' + b"7" * 5000 + b"}}", "application/json"),
    ]
    # 10 MB of one line, as text and as one JSON string (the server's upload cap is raised for
    # them, see main): linear to read, but ~0.1 s of decoding each that is not the server's.
    line = b"B1: " + b"d_head = 64 " * (10 * MIB // 12)
    long_lines = [("line.txt", line, "text/plain"),
                  ("line.json", b'{"answers": {"B1": "' + line + b'"}}', "application/json")]
    count = max(4, round(40 * scale))
    documents = [kinds[n % len(kinds)] for n in range(count)]
    documents += [long_lines[n % 2] for n in range(max(2, round(6 * scale)))]
    return await _post_all(base, token, documents, connections=20)


def _small_files(count: int) -> list[tuple[str, bytes, str]]:
    """Many small hostile or plain documents: nested, long integers, malformed, binary, fine."""
    kinds = [
        ("n.json", b'{"answers": {"B1": ' + b"[" * 3000 + b"]" * 3000 + b"}}", "application/json"),
        ("i.json", b'{"answers": {"B1": ' + b"9" * 400 + b"}}", "application/json"),
        ("m.json", b'{"answers": {"B1": 64,,}}', "application/json"),
        ("b.txt", b"\x01\x02" * 200, "text/plain"),
        ("s.md", b"## B1\n\nd_head = 64\n", "text/markdown"),
        ("a.json", b'{"answers": {"B1": "64"}}', "application/json"),
    ]
    return [kinds[n % len(kinds)] for n in range(count)]


async def _post_all(base: str, token: str, documents: list[tuple[str, bytes, str]],
                    connections: int) -> list[int]:
    # no limit on waiting for a connection: the flood queues in the client, not as an error
    async with httpx.AsyncClient(base_url=base, timeout=httpx.Timeout(300, pool=None),
                                 limits=httpx.Limits(max_connections=connections)) as client:
        async def post(document: tuple[str, bytes, str]) -> int:
            try:
                answer = await client.post(UPLOAD, headers=_auth(token), files={"file": document})
            except httpx.TransportError:  # a connection the server dropped: reported as 0
                return 0
            return answer.status_code

        return list(await asyncio.gather(*[post(document) for document in documents]))


async def small_files_flood(base: str, token: str, scale: float) -> list[int]:
    return await _post_all(base, token, _small_files(max(12, round(400 * scale))),
                           connections=50)


async def _graded_after(client: httpx.AsyncClient, token: str, answers: dict[str, str]) -> float:
    started = time.perf_counter()
    done = await client.post(UPLOAD, params={"wait": "true"}, headers=_auth(token),
                             json={"answers": answers})
    assert done.status_code == 201, done.text
    return time.perf_counter() - started


async def slow_flood(base: str, flooder: str, other: str, scale: float,
                     waits: dict[str, float]) -> list[int]:
    async with httpx.AsyncClient(base_url=base, timeout=300) as client:
        waits["idle"] = await _graded_after(client, other, {"B1": "d_head = 768 / 12 = 64"})
        waits["slow_job"] = await _graded_after(client, flooder, {"B3": LOOP})
        count = max(2, round(9 * scale))  # within the upload burst (10)
        flood = [await client.post(UPLOAD, headers=_auth(flooder), json={"answers": {
            "B3": LOOP.replace("pass", f"x = {n}")}}) for n in range(count)]
        await asyncio.sleep(0.5)  # the flood is queued and running
        waits["other"] = await _graded_after(client, other, {"B1": "64"})
    return [a.status_code for a in flood] + [201]


async def sign_in_flood(base: str, student: str, prof: str, scale: float,
                        outcome: dict[str, bool]) -> list[int]:
    async with httpx.AsyncClient(base_url=base, timeout=60) as instructor:
        signed = await instructor.post("/sign-in", data={"token": prof, "next": "/"})
        outcome["signed_in"] = "gf_session" in instructor.cookies
        count = max(50, round(2000 * scale))
        async with httpx.AsyncClient(base_url=base, timeout=httpx.Timeout(60, pool=None),
                                     limits=httpx.Limits(max_connections=50)) as flood:
            answers = await asyncio.gather(*[
                flood.post("/sign-in", data={"token": student, "next": "/"})
                for _ in range(count)])
        page = await instructor.get("/")
        outcome["still_signed_in"] = signed.status_code in (200, 303) and (
            'name="token"' not in page.text)
    return [a.status_code for a in answers]


async def _drip(port: int, closed_after: list[float]) -> int:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    started = time.perf_counter()
    writer.write(b"POST /sign-in HTTP/1.1\r\nHost: x\r\nContent-Type: application/x-www-form-"
                 b"urlencoded\r\nContent-Length: 100000\r\n\r\n")
    answer = asyncio.create_task(reader.readline())
    status = 0
    while not answer.done() and time.perf_counter() - started < 60:
        try:
            writer.write(b"a")
            await writer.drain()
        except (ConnectionError, OSError):
            break
        await asyncio.wait([answer], timeout=2.0)
    try:
        line = await asyncio.wait_for(answer, 5)
        status = int(line.split()[1]) if line.startswith(b"HTTP/1.1") else 0
    except (ConnectionError, OSError, TimeoutError, ValueError, IndexError):
        status = 0
    closed_after.append(time.perf_counter() - started)
    writer.close()
    return status


async def drip_flood(port: int, scale: float, closed_after: list[float]) -> list[int]:
    count = max(10, round(300 * scale))
    return list(await asyncio.gather(*[_drip(port, closed_after) for _ in range(count)]))


def probe(port: int, out: Path) -> None:
    """In a process of its own: GET /healthz every 50 ms, one latency (s) per line, until
    killed. Apart from the flood's client, whose event loop is busy with thousands of requests
    (a probe sharing it measures the client's own queue: 30 s where curl saw 18 ms)."""
    with httpx.Client(timeout=60) as client, out.open("w") as sink:
        while True:
            started = time.perf_counter()
            client.get(f"http://127.0.0.1:{port}/healthz")
            sink.write(f"{time.perf_counter() - started}\n")
            sink.flush()
            time.sleep(0.05)


async def measure(name: str, pid: int, port: int, baseline_mb: float,
                  flood: Callable[[], Awaitable[list[int]]]) -> Phase:
    with tempfile.TemporaryDirectory(prefix="gf-probe-") as tmp:
        out = Path(tmp) / "latencies"
        prober = subprocess.Popen([sys.executable, __file__, "--probe", str(port), str(out)],
                                  cwd=REPO)
        try:
            started = time.perf_counter()
            statuses = await flood()
            seconds = time.perf_counter() - started
            await asyncio.sleep(0.2)
        finally:
            prober.kill()
            prober.wait(10)
        latencies = sorted(float(x) for x in out.read_text().split()) or [0.0]
    return Phase(name, len(statuses), Counter(statuses), seconds, latencies[-1],
                 latencies[len(latencies) // 2], rss_mb(pid) - baseline_mb)


async def run(pid: int, port: int, tokens: dict[str, str], scale: float
              ) -> tuple[list[Phase], dict[str, float], dict[str, bool], list[float]]:
    base = f"http://127.0.0.1:{port}"
    async with httpx.AsyncClient(base_url=base, timeout=120) as client:  # warm up
        await client.post(UPLOAD, params={"wait": "true"}, headers=_auth(tokens["prof"]),
                          json={"answers": {"B1": "64"}})
    await asyncio.sleep(1)
    baseline = rss_mb(pid)
    waits: dict[str, float] = {}
    signed: dict[str, bool] = {}
    closed_after: list[float] = []
    phases = [
        # first, on idle grading processes: the document floods leave a grading backlog
        await measure("slow uploads", pid, port, baseline,
                      lambda: slow_flood(base, tokens["eve"], tokens["alice"], scale, waits)),
        # from staff, exempt from the per-student upload rate: every document is read
        await measure("documents", pid, port, baseline,
                      lambda: documents_flood(base, tokens["prof"], scale)),
        await measure("many small files", pid, port, baseline,
                      lambda: small_files_flood(base, tokens["prof"], scale)),
        await measure("sign-ins", pid, port, baseline,
                      lambda: sign_in_flood(base, tokens["trudy"], tokens["prof"], scale,
                                            signed)),
        await measure("drip", pid, port, baseline,
                      lambda: drip_flood(port, scale, closed_after)),
    ]
    return phases, waits, signed, closed_after


def report(phases: list[Phase], waits: dict[str, float], signed: dict[str, bool],
           closed_after: list[float], scale: float) -> tuple[str, bool]:
    fair = waits["other"] <= waits["slow_job"] + waits["idle"] + 0.5
    kept = signed.get("signed_in", False) and signed.get("still_signed_in", False)
    dropped = max(closed_after) <= ANONYMOUS_DEADLINE_S + 3.0 if closed_after else False
    fast = all(p.healthz_max_s <= 1.0 for p in phases)
    ok = fair and kept and dropped and fast
    rows = ["| phase | requests | answers | seconds | /healthz max | /healthz p50 |",
            "|---|---|---|---|---|---|"]
    for p in phases:
        answers = ", ".join(f"{code}×{n}" for code, n in sorted(p.statuses.items()))
        rows.append(f"| {p.name} | {p.requests} | {answers} | {p.seconds:.1f} | "
                    f"{p.healthz_max_s * 1000:.0f} ms | {p.healthz_p50_s * 1000:.0f} ms |")
    closed = sorted(closed_after)
    body = (
        "## Hostile students: stalls, starvation, crowding out\n\n"
        f"Scale {scale:g}, `benchmarks/hostile.py`: the real server with two grading processes, "
        "/healthz probed every 50 ms in every phase (limit 1 s). **"
        + ("PASS" if ok else "FAIL") + "**\n\n" + "\n".join(rows) + "\n\n"
        "- documents: PDFs behind 1,100 spaces sent as `answers.txt`, notebooks with an escaped "
        "`cells` key, 200,000-deep JSON, 5,000-digit integers, and 10 MB of one line as text "
        "and as one JSON string (the upload cap raised to 12 MiB for them), all at once (from "
        "staff, who have no upload rate limit); many small files: 3,000-deep JSON, 400-digit "
        "integers, malformed JSON, binary text and plain answers on 50 connections. Every "
        "document is read by a helper process (text and JSON by the warm light helpers, PDFs "
        "and notebooks by forked children), accepted (202) or refused (422 "
        "unreadable-upload); the server decodes none of them.\n"
        f"- slow uploads: another student's one-line answer waited **{waits['other']:.1f} s** "
        f"behind a flood of looping programs, against {waits['slow_job']:.1f} s for one such "
        f"program and {waits['idle']:.1f} s for the same answer on an idle server (fair share: at "
        f"most one slow job's time more) — {'within' if fair else 'OVER'} the bound.\n"
        f"- sign-ins: the instructor's browser session "
        f"{'survived' if kept else 'did NOT survive'} the flood of one student's sign-ins "
        "(throttled per address and per token: 429 with Retry-After; a user's own sessions are "
        "capped, never another user's).\n"
        f"- drip: {len(closed)} unauthenticated bodies sent a byte every 2 s were dropped after "
        f"{closed[0]:.1f}–{closed[-1]:.1f} s (the anonymous whole-body deadline is "
        f"{ANONYMOUS_DEADLINE_S:g} s; answer 408).\n"
    ) if closed else "no drip connections ran\n"
    return body, ok


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--scale", type=float, default=1.0, help="fraction of the full floods")
    parser.add_argument("--no-write", action="store_true")
    parser.add_argument("--probe", nargs=2, metavar=("PORT", "FILE"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.probe:
        probe(int(args.probe[0]), Path(args.probe[1]))
        return
    with tempfile.TemporaryDirectory(prefix="gf-hostile-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'hostile.db'}"
        upgrade(url)
        engine = make_engine(url)
        people = {"prof": "instructor", "eve": "student",
                  "alice": "student", "trudy": "student"}
        with unit_of_work(make_sessionmaker(engine)) as session:
            tokens = {n: create_token(session, n, role).token for n, role in people.items()}
        engine.dispose()
        port = free_port()
        env = {**os.environ, "GRADEFORMER_DATABASE_URL": url, "GRADEFORMER_WORKERS": "2",
               # the 10 MB lines are read, not refused by size (the default cap is 2 MiB)
               "GRADEFORMER_MAX_UPLOAD_BYTES": str(12 * MIB)}
        server = subprocess.Popen(
            [sys.executable, "-m", "app.cli.main", "serve", "--port", str(port)],
            cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        try:
            asyncio.run(wait_healthy(port))
            phases, waits, signed, closed = asyncio.run(run(server.pid, port, tokens, args.scale))
        finally:
            server.terminate()
            server.wait(60)
    body, ok = report(phases, waits, signed, closed, args.scale)
    print(body)
    print(json.dumps({"ok": ok, "waits": waits, "signed": signed,
                      "statuses": {p.name: dict(Counter(p.statuses)) for p in phases}}))
    if not args.no_write:
        write_section("hostile", body)
    if not ok:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
