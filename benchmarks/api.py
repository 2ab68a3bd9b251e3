"""API under concurrent uploads: accepted uploads/s, latency, CPU per upload, nothing lost.

    python benchmarks/api.py [--seconds 20] [--concurrency 32] [--profile out.txt]

Starts the real server (`gradeformer serve`) on a random local port in a subprocess with a fresh
SQLite database, uploads synthetic submissions from many concurrent keep-alive connections for
a bounded time, waits until the server has graded everything it accepted, then checks that every
upload answered 202 is stored and graded exactly once.

The load generator shares the 2 cores with the server, so it must be cheap: every request is
built before the clock starts (bytes with the body and a bearer token), sent on raw asyncio
streams (HTTP/1.1, keep-alive), and only the status line, Content-Length and the small JSON
answer are parsed. Its own CPU time is measured and reported next to the server's.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

from report import write_section  # noqa: E402
from sqlalchemy import func, select  # noqa: E402
from sqlalchemy.orm import Session, sessionmaker  # noqa: E402

from app.auth.service import create_token  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.db.models import GradingRun, Submission  # noqa: E402
from app.db.session import make_engine, make_sessionmaker, unit_of_work  # noqa: E402
from tests.support.ports import free_port  # noqa: E402
from tests.support.proctree import children  # noqa: E402
from tests.support.synthetic import submission  # noqa: E402

SLUG = "transformer-basics"
PATH = f"/api/v1/assignments/{SLUG}/submissions"
DISTINCT_BODIES = 4096
CLK_TCK = os.sysconf("SC_CLK_TCK")



def build_requests(tokens: list[str], port: int) -> list[bytes]:
    """Complete HTTP/1.1 requests, ready to write: half JSON, half free text uploads."""
    requests: list[bytes] = []
    for i in range(DISTINCT_BODIES):
        raw, _name, ctype = submission(i)
        head = (
            f"POST {PATH} HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\n"
            f"authorization: Bearer {tokens[i % len(tokens)]}\r\n"
            f"content-type: {ctype}\r\ncontent-length: {len(raw)}\r\n\r\n"
        )
        requests.append(head.encode() + raw)
    return requests


@dataclass
class LoadResult:
    latencies: list[float] = field(default_factory=list)
    finished: list[float] = field(default_factory=list)  # seconds into the phase
    accepted: list[int] = field(default_factory=list)
    failures: Counter[str] = field(default_factory=Counter)
    elapsed: float = 0.0
    client_cpu: float = 0.0


async def _exchange(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, request: bytes
) -> tuple[int, bytes, bool]:
    writer.write(request)
    head = await reader.readuntil(b"\r\n\r\n")
    status = int(head[9:12])
    length = 0
    close = False
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        name = name.lower()
        if name == b"content-length":
            length = int(value)
        elif name == b"connection" and value.strip().lower() == b"close":
            close = True
    body = await reader.readexactly(length) if length else b""
    return status, body, close


async def wait_healthy(port: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    probe = f"GET /healthz HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\n\r\n".encode()
    while time.monotonic() < deadline:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            status, _, _ = await _exchange(reader, writer, probe)
            writer.close()
            if status == 200:
                return
        except OSError:
            pass
        await asyncio.sleep(0.2)
    raise SystemExit("the server did not become healthy")


async def load(
    port: int,
    requests: list[bytes],
    seconds: float,
    concurrency: int,
    rate: float | None = None,
    first: int = 0,
) -> LoadResult:
    """Closed loop (`rate` None: every connection sends its next upload as soon as it has an
    answer, which finds the server's capacity) or open loop (uploads due at `rate` per second
    whether or not earlier ones were answered; latency counts from when an upload was due, so a
    server that falls behind is charged for the queue it causes)."""
    result = LoadResult()
    cpu_started = time.process_time()
    started = time.perf_counter()
    stop = started + seconds
    perf_counter = time.perf_counter
    counter = iter(range(first, first + 10**9))
    due: asyncio.Queue[float | None] = asyncio.Queue()

    async def schedule() -> None:
        assert rate is not None
        sent = 0
        while (now := perf_counter()) < stop:
            while started + sent / rate <= now:
                due.put_nowait(started + sent / rate)
                sent += 1
            await asyncio.sleep(0.001)
        for _ in range(concurrency):
            due.put_nowait(None)

    async def connection() -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        try:
            while True:
                if rate is None:
                    sent = perf_counter()
                    if sent >= stop:
                        return
                else:
                    ticket = await due.get()
                    if ticket is None:
                        return
                    sent = ticket
                request = requests[next(counter) % len(requests)]
                try:
                    status, body, close = await _exchange(reader, writer, request)
                except (OSError, asyncio.IncompleteReadError) as exc:
                    result.failures[type(exc).__name__] += 1
                    writer.close()
                    reader, writer = await asyncio.open_connection("127.0.0.1", port)
                    continue
                now = perf_counter()
                result.latencies.append(now - sent)
                result.finished.append(now - started)
                if status == 202:
                    result.accepted.append(int(json.loads(body)["id"]))
                else:
                    result.failures[f"{status}: {body[:200]!r}"] += 1
                if close:
                    writer.close()
                    reader, writer = await asyncio.open_connection("127.0.0.1", port)
        finally:
            writer.close()

    tasks = [connection() for _ in range(concurrency)]
    if rate is not None:
        tasks.append(schedule())
    await asyncio.gather(*tasks)
    result.elapsed = time.perf_counter() - started
    result.client_cpu = time.process_time() - cpu_started
    return result


def stop_server(server: subprocess.Popen[bytes]) -> None:
    """SIGTERM (a graceful shutdown, within two minutes), else SIGKILL."""
    server.terminate()
    try:
        server.wait(timeout=120)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


def cpu_seconds(pid: int) -> float:
    """User + system CPU of one process (all its threads), from /proc."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def tree_cpu_seconds(pid: int) -> float:
    """CPU of a process's descendants (the grading processes and their sandboxes)."""
    total, stack, seen = 0.0, children(pid), set()
    while stack:
        child = stack.pop()
        if child not in seen:
            seen.add(child)
            total += cpu_seconds(child)
            stack.extend(children(child))
    return total


def wait_graded(sessions: sessionmaker[Session], timeout: float) -> float:
    """Seconds until no accepted submission is still queued or grading."""
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        with unit_of_work(sessions) as session:
            waiting = session.scalar(
                select(func.count()).where(Submission.status.in_(("queued", "grading")))
            )
        if not waiting:
            return time.monotonic() - started
        time.sleep(1)
    raise SystemExit(f"grading did not finish within {timeout:.0f} s")


def start_profiler(pid: int, seconds: float, out: Path) -> subprocess.Popen[bytes] | None:
    py_spy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(py_spy).exists():
        print("py-spy is not installed (pip install py-spy): no profile", file=sys.stderr)
        return None
    return subprocess.Popen(
        [
            *(py_spy, "record", "--pid", str(pid), "--duration", str(int(seconds))),
            *("--rate", "200", "--gil", "--format", "raw", "--output", str(out), "--nonblocking"),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def summarise_profile(raw: Path, top: int = 40) -> str:
    """Inclusive share of samples per function, from py-spy's collapsed stacks."""
    inclusive: Counter[str] = Counter()
    leaf: Counter[str] = Counter()
    total = 0
    for line in raw.read_text().splitlines():
        stack, _, count = line.rpartition(" ")
        n = int(count)
        total += n
        frames = [
            f.split(" (")[0] + " " + f.rsplit("/", 1)[-1].rstrip(")") for f in stack.split(";")
        ]
        for frame in set(frames):
            inclusive[frame] += n
        leaf[frames[-1]] += n
    lines = [f"{total} samples", "inclusive:"]
    lines += [f"{100 * n / total:5.1f}% {f}" for f, n in inclusive.most_common(top)]
    lines += ["self:"] + [f"{100 * n / total:5.1f}% {f}" for f, n in leaf.most_common(top)]
    return "\n".join(lines)


def loadavg() -> float:
    return os.getloadavg()[0]


@dataclass
class Phase:
    name: str
    result: LoadResult
    server_cpu: float
    grading_cpu: float
    load_before: float
    load_after: float

    def row(self) -> str:
        r = self.result
        q = statistics.quantiles(r.latencies, n=100) if len(r.latencies) > 1 else [0.0] * 99
        n = max(len(r.accepted), 1)
        ms = 1000 / n
        return (
            f"| {self.name} | {r.elapsed:.1f} s | {len(r.accepted)} | "
            f"{len(r.accepted) / r.elapsed:.0f} | {q[49] * 1000:.0f} ms | {q[94] * 1000:.0f} ms | "
            f"{q[98] * 1000:.0f} ms | {sum(r.failures.values())} | {r.client_cpu * ms:.2f} | "
            f"{self.server_cpu * ms:.2f} | {self.grading_cpu * ms:.2f} | "
            f"{self.load_before:.1f} → {self.load_after:.1f} |"
        )


def verdict(open_loop: Phase, rate: float, lost: list[int]) -> str:
    r = open_loop.result
    p95 = statistics.quantiles(r.latencies, n=100)[94] * 1000 if len(r.latencies) > 1 else 0.0
    accepted = len(r.accepted) / r.elapsed
    # The phase ends when the last upload due is answered, a little after its nominal length.
    met = rate >= 200 and accepted >= 0.98 * rate and p95 <= 100 and not lost
    return (
        f"**Target {'met' if met else 'missed'}** in this run: {accepted:.0f} uploads/s accepted "
        f"of {rate:.0f}/s offered with p95 {p95:.0f} ms, {len(lost)} lost."
    )


def run_phase(
    name: str, pid: int, port: int, requests: list[bytes], args: argparse.Namespace, **how: Any
) -> Phase:
    server0, grading0, load0 = cpu_seconds(pid), tree_cpu_seconds(pid), loadavg()
    result = asyncio.run(load(port, requests, args.seconds, args.concurrency, **how))
    return Phase(
        name,
        result,
        cpu_seconds(pid) - server0,
        tree_cpu_seconds(pid) - grading0,
        load0,
        loadavg(),
    )


def descendants(pid: int) -> set[int]:
    found, stack = set(), children(pid)
    while stack:
        child = stack.pop()
        if child not in found:
            found.add(child)
            stack.extend(children(child))
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=15, help="length of each load phase")
    parser.add_argument("--rate", type=float, default=200, help="open-loop uploads per second")
    parser.add_argument("--concurrency", type=int, default=32)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--drain-timeout", type=float, default=900)
    parser.add_argument("--profile", type=Path, help="py-spy the server; write a summary here")
    parser.add_argument("--serve-arg", action="append", default=[], help="extra `serve` option")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="gf-api-") as tmp:
        url = f"sqlite:///{Path(tmp) / 'api.db'}"
        upgrade(url)
        sessions = make_sessionmaker(make_engine(url))
        with unit_of_work(sessions) as session:
            tokens = [create_token(session, f"s{i:03d}", "student").token for i in range(50)]
        port = free_port()
        requests = build_requests(tokens, port)
        env = {
            **os.environ,
            "GRADEFORMER_DATABASE_URL": url,
            "GRADEFORMER_WORKERS": str(args.workers),
            # A deadline rush of many students is simulated by few tokens at far more uploads
            # each than a real student sends: the per-student limits would measure 429s.
            "GRADEFORMER_UPLOADS_IN_PROGRESS": "1000",
            "GRADEFORMER_UPLOADS_PER_MINUTE": "1000000",
            "GRADEFORMER_UPLOAD_BURST": "1000000",
            "GRADEFORMER_STUDENT_QUOTA_BYTES": str(1 << 40),
        }
        cli = Path(sys.executable).with_name("gradeformer")
        log_path = Path(tmp) / "server.log"
        with log_path.open("wb") as log_file:
            server = subprocess.Popen(
                [str(cli), "serve", "--host", "127.0.0.1", "--port", str(port), *args.serve_arg],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=log_file,
            )
        profiler = None
        children: set[int] = set()
        try:
            asyncio.run(wait_healthy(port))
            time.sleep(1)  # let the grading processes finish starting
            if args.profile:
                raw = args.profile.with_suffix(".raw")
                profiler = start_profiler(server.pid, 2 * args.seconds, raw)
            phases = [
                run_phase(
                    f"open loop, {args.rate:.0f}/s offered",
                    server.pid,
                    port,
                    requests,
                    args,
                    rate=args.rate,
                ),
                run_phase(
                    f"closed loop, {args.concurrency} connections",
                    server.pid,
                    port,
                    requests,
                    args,
                    first=10**6,
                ),
            ]
            drain = wait_graded(sessions, args.drain_timeout)
            children = descendants(server.pid)
        finally:
            stop_server(server)
            if profiler is not None:
                profiler.wait()
        errors = [line for line in log_path.read_text().splitlines() if "ERROR" in line]
        time.sleep(1)
        # Grading processes that outlived the server would be a leak: report and end them.
        leaked = sorted(
            pid
            for pid in children
            if Path(f"/proc/{pid}/stat").exists()
            and " Z " not in Path(f"/proc/{pid}/stat").read_text()
        )
        for pid in leaked:
            os.kill(pid, 9)
        with unit_of_work(sessions) as session:
            stored = set(session.scalars(select(Submission.id)))
            ungraded = set(
                session.scalars(
                    select(Submission.id).where(Submission.status.in_(("queued", "grading")))
                )
            )
            runs = Counter(
                dict(
                    session.execute(
                        select(GradingRun.submission_id, func.count()).group_by(
                            GradingRun.submission_id
                        )
                    ).all()
                )
            )
            mix = Counter(
                dict(
                    session.execute(
                        select(Submission.status, func.count()).group_by(Submission.status)
                    ).all()
                )
            )
    accepted = {i for phase in phases for i in phase.result.accepted}
    lost = sorted(accepted - stored)
    not_graded = sorted((accepted & ungraded) | {i for i in accepted if runs[i] == 0})
    twice = sorted(i for i in accepted if runs[i] > 1)
    for phase in phases:
        for kind, count in phase.result.failures.most_common(5):
            print(f"{phase.name}: error x{count}: {kind}", file=sys.stderr)
    for line in errors[:10]:
        print(f"server: {line}", file=sys.stderr)
    nice = os.environ.get("GRADEFORMER_WORKER_NICE", "10")
    body = (
        "## API uploads under load (`gradeformer serve`, uvicorn, SQLite)\n\n"
        "| load | duration | accepted | accepted/s | p50 | p95 | p99 | errors "
        "| CPU ms/upload: load generator | API server | grading (concurrent) | load average |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n"
        + "\n".join(phase.row() for phase in phases)
        + "\n\n"
        f"Accepted uploads checked after the backlog was graded ({drain:.0f} s after the load): "
        f"**{len(lost)} lost** (answered 202 but absent from the database), {len(not_graded)} "
        f"not graded (still queued, or without a grading run), {len(twice)} graded more than "
        f"once; {len(errors)} errors in the server's log; {len(leaked)} grading processes "
        f"outlived the server ({', '.join(f'{k} {v}' for k, v in sorted(mix.items()))}).\n\n"
        f"Each upload is a synthetic transformer-basics submission (JSON or free text, "
        f"{DISTINCT_BODIES} distinct bodies) from one of {len(tokens)} student tokens, sent on "
        f"{args.concurrency} keep-alive connections by a load generator in one process (raw "
        f"asyncio, requests built before the clock starts) on the same 2 cores as the server, "
        f"which grades in the background on {args.workers} worker processes (nice {nice}) while "
        f"it accepts uploads. Open loop: uploads are due at a fixed rate whether or not earlier "
        f"ones were answered, and latency counts from when an upload was due, so queueing in "
        f"the client is charged to the server; closed loop: each connection sends as soon as it "
        f"has its answer, which finds the capacity (its latency is mostly queueing: "
        f"{args.concurrency} connections / throughput). CPU columns: seconds of CPU used during "
        f"the phase per accepted upload. Load average (1 minute) before → after each phase: "
        f"other work on the machine shows there. Targets: ≥ 200 uploads/s accepted with "
        f"p95 ≤ 100 ms, nothing lost.\n\n{verdict(phases[0], args.rate, lost)}"
    )
    print(body)
    if args.profile:
        raw = args.profile.with_suffix(".raw")
        if raw.exists():
            args.profile.write_text(summarise_profile(raw))
            print(f"profile summary in {args.profile}")
    if lost or not_graded or twice or leaked:
        raise SystemExit(
            f"lost {lost[:20]}, not graded {not_graded[:20]}, twice {twice[:20]}, "
            f"leaked processes {leaked}"
        )
    if not args.no_write:
        print(f"wrote {write_section('api', body)}")


if __name__ == "__main__":
    main()
