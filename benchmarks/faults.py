"""Faults injected into real servers and workers: is any acknowledged upload lost, left ungraded
once the sweeper has had its interval, or graded twice on the same rubric version?

    python benchmarks/faults.py [--uploads 40] [--only local|celery]

Local executor (SQLite): grading processes killed with SIGKILL; SIGTERM to the server's process
group mid-queue, then a restart; the write lock held past the 30 s lock timeout; a full small
filesystem (tmpfs, needs root) under the database. Celery (PostgreSQL 127.0.0.1:5432, a private
redis-server on a free port, a prefork worker): the API started with the broker down; a pool
process killed mid-grade; the whole worker killed; a Redis restart that loses the queue; an API
restart with work queued. Every upload body is a synthetic submission, matched to its row by
id and sha256. Servers run with a 5 s lease and a 1 s sweep interval so recovery is measured in
seconds, not the production defaults (10 min, 30 s).
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import secrets
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

import httpx  # noqa: E402
from report import write_section  # noqa: E402

from app.auth.service import create_token  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.db.session import make_engine, make_sessionmaker, unit_of_work  # noqa: E402
from tests.support.faultkit import Ledger, PrivateRedis, Server, Worker, migrated_postgres  # noqa: E402
from tests.support.synthetic import submission  # noqa: E402

UPLOAD = "/api/v1/assignments/transformer-basics/submissions"
PG_ADMIN = "postgresql+psycopg://postgres@127.0.0.1:5432/test"
FAST_RECOVERY = {
    "GRADEFORMER_WORKERS": "2",
    "GRADEFORMER_GRADING_LEASE_SECONDS": "5",
    "GRADEFORMER_SWEEP_INTERVAL_SECONDS": "1",
    "GRADEFORMER_SHUTDOWN_GRACE_SECONDS": "3",
    "GRADEFORMER_GRADING_DEADLINE_SECONDS": "30",
}
RECOVERY_TIMEOUT = 300.0


def token_for(url: str) -> str:
    engine = make_engine(url)
    try:
        with unit_of_work(make_sessionmaker(engine)) as session:
            return create_token(session, f"bench-{secrets.token_hex(3)}", "instructor").token
    finally:
        engine.dispose()


# Every upload of the run is a different body: nothing is answered from a cache.
_SEEDS = itertools.count(1)


class Uploader:
    def __init__(self, ledger: Ledger, token: str) -> None:
        self.ledger = ledger
        self.token = token
        self.slowest = 0.0
        self._lock = threading.Lock()

    def one(self, server: Server) -> None:
        with self._lock:
            seed = next(_SEEDS)
        raw, _, content_type = submission(seed)
        headers = {"authorization": f"Bearer {self.token}", "content-type": content_type}
        began = time.monotonic()
        try:
            # staff upload: filed under a student named here (app/submissions/filing.py)
            answer = httpx.post(f"{server.base}{UPLOAD}", params={"student": f"s{seed % 400}"},
                                content=raw, headers=headers, timeout=60)
        except httpx.HTTPError:
            answer = None
        with self._lock:
            self.slowest = max(self.slowest, time.monotonic() - began)
            if answer is not None and answer.status_code == 202:
                self.ledger.acknowledged[int(answer.json()["id"])] = hashlib.sha256(raw).hexdigest()
            else:
                self.ledger.refused += 1

    def many(self, server: Server, count: int) -> None:
        with ThreadPoolExecutor(8) as pool:
            list(pool.map(lambda _: self.one(server), range(count)))

    def stream(self, server: Server, count: int) -> threading.Thread:
        """Upload in the background: the fault strikes while uploads arrive and grade."""
        thread = threading.Thread(target=self.many, args=(server, count))
        thread.start()
        return thread


Result = dict[str, object]


def finish(ledger: Ledger, note: str, recovered: float) -> Result:
    return {**ledger.counts(), "recovered_s": round(recovered, 1), "note": note}


# -- local executor, SQLite --------------------------------------------------------------------


@contextmanager
def local_server(folder: Path, extra: dict[str, str] | None = None) -> Iterator[Server]:
    url = f"sqlite:///{folder / 'gradeformer.db'}"
    upgrade(url)
    env = {**FAST_RECOVERY, "GRADEFORMER_DATABASE_URL": url}
    env["GRADEFORMER_EMBEDDING_CACHE_DIR"] = str(folder.parent / "emb")
    server = Server({**env, **(extra or {})}, folder.parent / f"{folder.name}.log")
    server.start()
    try:
        yield server
    finally:
        server.signal_group(signal.SIGKILL)


def kill_workers(folder: Path, uploads: int) -> Result:
    with local_server(folder) as server:
        ledger = Ledger(f"sqlite:///{folder / 'gradeformer.db'}")
        up = Uploader(ledger, token_for(ledger.url))
        stream = up.stream(server, 3 * uploads)
        killed = 0
        for _ in range(3):
            time.sleep(1.5)
            pids = server.grading_processes()
            if pids:
                subprocess.run(["kill", "-9", str(pids[0])], check=False)
                killed += 1
        stream.join()
        recovered = ledger.wait_graded(RECOVERY_TIMEOUT)
        return finish(ledger, f"{killed} grading processes killed (SIGKILL) mid-stream", recovered)


def sigterm_group(folder: Path, uploads: int) -> Result:
    url = f"sqlite:///{folder / 'gradeformer.db'}"
    with local_server(folder) as server:
        ledger = Ledger(url)
        stream = Uploader(ledger, token_for(url)).stream(server, 3 * uploads)
        time.sleep(3)
        stopped = server.signal_group(signal.SIGTERM)
        stream.join()  # uploads after the signal are refused: not acknowledged
        after = ledger.counts()
    with local_server(folder):
        recovered = ledger.wait_graded(RECOVERY_TIMEOUT)
    note = (
        f"SIGTERM mid-stream; stopped in {stopped:.1f} s with "
        f"{after['acknowledged'] - after['ungraded']} graded, "
        f"{after['ungraded'] - after['grader_error']} left queued, {after['grader_error']} "
        "failed; the restart graded the rest"
    )
    return finish(ledger, note, recovered)


def database_locked(folder: Path, uploads: int) -> Result:
    url = f"sqlite:///{folder / 'gradeformer.db'}"
    with local_server(folder) as server:
        ledger = Ledger(url)
        up = Uploader(ledger, token_for(url))
        stream = up.stream(server, 2 * uploads)
        time.sleep(1.5)
        blocker = sqlite3.connect(folder / "gradeformer.db", isolation_level=None)
        blocker.execute("BEGIN IMMEDIATE")  # another process holds the write lock for 35 s
        waiting = ledger.counts()["ungraded"]
        time.sleep(2)
        health = httpx.get(f"{server.base}/healthz", timeout=10).json()["database"]
        time.sleep(33)
        blocker.execute("ROLLBACK")
        blocker.close()
        stream.join()
        recovered = ledger.wait_graded(RECOVERY_TIMEOUT)
        note = (
            f"write lock held 35 s from when {waiting} were still to grade; /healthz said "
            f"database {health!r}; uploads meanwhile waited 30 s, then got 503 (refused)"
        )
        return finish(ledger, note, recovered)


def full_disk(folder: Path, uploads: int) -> Result:
    folder.mkdir(exist_ok=True)
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=24m", "tmpfs", str(folder)], capture_output=True
    )
    if mounted.returncode != 0:
        return {"note": f"skipped: cannot mount tmpfs ({mounted.stderr.decode().strip()})"}
    try:
        with local_server(folder, {"GRADEFORMER_MIN_FREE_DISK_BYTES": str(1 << 20)}) as server:
            ledger = Ledger(f"sqlite:///{folder / 'gradeformer.db'}")
            up = Uploader(ledger, token_for(ledger.url))
            stream = up.stream(server, 2 * uploads)
            time.sleep(1.5)
            waiting = ledger.counts()["ungraded"]
            filler = folder / "filler"
            try:
                with filler.open("wb") as out:
                    while True:
                        out.write(b"\0" * 65536)
                        out.flush()
            except OSError:
                pass  # full (it may be full before the filler gets a byte)
            health = httpx.get(f"{server.base}/healthz", timeout=10).json()["disk"]
            time.sleep(10)
            filler.unlink(missing_ok=True)
            stream.join()
            recovered = ledger.wait_graded(RECOVERY_TIMEOUT)
            note = (
                f"24 MiB tmpfs filled for 10 s from when {waiting} were still to grade; "
                f"/healthz said disk {health!r}"
            )
            return finish(ledger, note, recovered)
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


# -- Celery, PostgreSQL ------------------------------------------------------------------------


def celery_scenarios(folder: Path, uploads: int) -> dict[str, Result]:
    results: dict[str, Result] = {}
    with migrated_postgres(PG_ADMIN, "gf_faults") as url:
        broker = PrivateRedis(folder)
        env = {
            **FAST_RECOVERY,
            "GRADEFORMER_DATABASE_URL": url,
            "GRADEFORMER_CELERY_BROKER_URL": broker.url,
            "GRADEFORMER_EMBEDDING_CACHE_DIR": str(folder / "emb"),
            "GRADEFORMER_PUBLISH_TIMEOUT_SECONDS": "0.5",
        }
        worker = Worker(env, folder / "worker.log")
        api = Server({**env, "GRADEFORMER_EXECUTOR": "celery"}, folder / "api.log")
        token = token_for(url)
        try:
            started = api.start()  # the broker is down
            ledger = Ledger(url)
            up = Uploader(ledger, token)
            up.many(api, uploads // 2)
            began = time.monotonic()
            httpx.get(f"{api.base}/healthz", timeout=30)
            health_s = time.monotonic() - began
            broker.start()
            worker.start()
            recovered = ledger.wait_graded(RECOVERY_TIMEOUT)
            results["API started with the broker down"] = finish(
                ledger,
                f"started in {started:.1f} s; slowest upload {up.slowest:.2f} s, /healthz "
                f"{health_s:.2f} s during the outage; graded once the broker was up",
                recovered,
            )

            def scenario(name: str, fault: Callable[[Uploader], str]) -> None:
                ledger = Ledger(url)
                note = fault(Uploader(ledger, token))
                results[name] = finish(ledger, note, ledger.wait_graded(RECOVERY_TIMEOUT))

            def kill_child(up: Uploader) -> str:
                up.many(api, uploads)
                killed = 0
                for _ in range(2):
                    time.sleep(2)
                    if worker.pool_children():
                        worker.kill_child()
                        killed += 1
                return f"{killed} pool processes killed (SIGKILL) mid-grade"

            def kill_worker(up: Uploader) -> str:
                up.many(api, uploads)
                time.sleep(1)
                worker.stop(signal.SIGKILL)
                left = up.ledger.counts()["ungraded"]
                time.sleep(2)
                worker.start()
                return (
                    f"the whole worker killed (SIGKILL to its group) with {left} not yet graded, "
                    "restarted after 2 s"
                )

            def redis_restart(up: Uploader) -> str:
                worker.stop(signal.SIGTERM)
                up.many(api, uploads // 2)
                broker.stop()
                broker.start()
                worker.start()
                return "Redis restarted (in-memory: the queue was lost) with work queued"

            def api_restart(up: Uploader) -> str:
                worker.stop(signal.SIGTERM)
                up.many(api, uploads // 2)
                api.signal_group(signal.SIGTERM)
                api.start()
                worker.start()
                return "the API restarted (SIGTERM) with work queued, then a worker came"

            scenario("Celery pool process killed", kill_child)
            scenario("Celery worker killed", kill_worker)
            scenario("Redis restarted, queue lost", redis_restart)
            scenario("API restarted", api_restart)
        finally:
            api.signal_group(signal.SIGKILL)
            worker.stop()
            broker.stop()
    return results


COLUMNS = ("acknowledged", "refused", "lost", "ungraded", "grader_error", "graded_twice")


def table(results: dict[str, Result]) -> str:
    head = "| scenario | " + " | ".join(COLUMNS) + " | recovered (s) | what happened |"
    rows = [head, "|" + "---|" * (len(COLUMNS) + 3)]
    for name, r in results.items():
        cells = [str(r.get(c, "")) for c in COLUMNS]
        rows.append(f"| {name} | " + " | ".join(cells) + f" | {r.get('recovered_s', '')} | "
                    f"{r.get('note', '')} |")  # fmt: skip
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--uploads", type=int, default=40)
    parser.add_argument("--only", choices=("local", "celery"))
    args = parser.parse_args()
    results: dict[str, Result] = {}
    root = Path(tempfile.mkdtemp(prefix="gf-faults-"))
    try:
        if args.only in (None, "local"):
            local: list[tuple[str, Callable[[Path, int], Result]]] = [
                ("grading processes killed", kill_workers),
                ("SIGTERM to the server's group, restart", sigterm_group),
                ("database write lock held 35 s", database_locked),
                ("full small filesystem", full_disk),
            ]
            for index, (name, run) in enumerate(local):
                folder = root / f"local{index}"
                folder.mkdir()
                results[f"local: {name}"] = run(folder, args.uploads)
                print(name, results[f"local: {name}"], flush=True)
        if args.only in (None, "celery"):
            folder = root / "celery"
            folder.mkdir()
            for name, result in celery_scenarios(folder, args.uploads).items():
                results[f"celery: {name}"] = result
                print(name, result, flush=True)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    body = (
        "## Faults\n\n"
        f"Synthetic uploads ({args.uploads} to {3 * args.uploads} per scenario: enough for a "
        "backlog when the fault strikes), 2 grading processes; lease 5 s, sweep every 1 s. "
        "*lost*: acknowledged (202) but missing or "
        "different bytes; *ungraded*: still queued/grading, or grader_error, after recovery; "
        "*graded twice*: more than one machine run on the same rubric version; *refused*: "
        "answered 503 during the fault (not acknowledged, the client retries). *recovered*: "
        "from the end of the fault until nothing acknowledged was left queued or grading. A "
        "killed Celery worker's claimed submissions wait out their claim (twice the 30 s "
        "grading deadline here) before the sweeper hands them out again: that bounds its "
        "recovery.\n\n" + table(results)
    )
    write_section("faults", body)
    print(table(results))


if __name__ == "__main__":
    main()
