"""Fault-injection kit for benchmarks/faults.py and the fault tests: a real API server, a private
Redis and a real Celery worker, each in its own process group so it can be signalled, killed
and restarted (the shared Redis is never touched), and a ledger that checks every acknowledged
upload against the database."""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import redis
from sqlalchemy import create_engine, func, make_url, select, text

from app.db.migrate import upgrade
from app.db.models import GradingRun, Submission
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from tests.support.ports import free_port
from tests.support.proctree import children


@contextmanager
def migrated_postgres(admin_url: str, prefix: str) -> Iterator[str]:
    """A fresh database <prefix>_<random> on the server of `admin_url`, migrated, dropped after."""
    admin = create_engine(admin_url, isolation_level="AUTOCOMMIT")
    name = f"{prefix}_{secrets.token_hex(6)}"
    try:
        with admin.connect() as connection:
            connection.execute(text(f'CREATE DATABASE "{name}"'))
        url = make_url(admin_url).set(database=name).render_as_string(hide_password=False)
        try:
            upgrade(url)
            yield url
        finally:
            with admin.connect() as connection:
                connection.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    finally:
        admin.dispose()

REPO = Path(__file__).resolve().parents[2]


def kill_a_grading_process(
    root: int, alive: Callable[[], bool], progressed: Callable[[], bool], timeout: float = 300
) -> int:
    """Once `progressed()` (the run has stored something), SIGKILL one process of the pool of
    the process `root` (a CLI run or a server): the fork server's children. Returns its pid."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and alive():
        workers = [g for c in children(root) for g in children(c)]
        if workers and progressed():
            os.kill(workers[0], signal.SIGKILL)
            return workers[0]
        time.sleep(0.1)
    raise RuntimeError("the run ended before a grading process could be killed")


class PrivateRedis:
    """redis-server on a free loopback port, in memory only (a restart loses every queue)."""

    def __init__(self, directory: Path) -> None:
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._directory = directory
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self._process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "",
             "--appendonly", "no", "--dir", str(self._directory)],
            stdout=subprocess.DEVNULL,
        )  # fmt: skip
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                redis.Redis(port=self.port, socket_connect_timeout=0.2).ping()
                return
            except redis.RedisError:
                time.sleep(0.05)
        raise RuntimeError("the private redis-server did not start")

    def stop(self) -> None:
        if self._process is not None:
            self._process.kill()
            self._process.wait()
            self._process = None


class Worker:
    """`celery worker` with a prefork pool of one process, in its own process group."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self._env = {**os.environ, **env}
        self._log = log
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "app.worker.tasks", "worker", "-P", "prefork",
             "-c", "1", "--without-gossip", "--without-mingle", "--without-heartbeat",
             "-l", "info"],
            cwd=REPO,
            env=self._env,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=self._log.open("ab"),
        )  # fmt: skip

    def pool_children(self) -> list[int]:
        return [] if self.process is None else children(self.process.pid)

    def kill_child(self) -> int:
        """SIGKILL the pool process (grading, or about to): Celery's WorkerLostError."""
        pid = self.pool_children()[0]
        os.kill(pid, signal.SIGKILL)
        return pid

    def stop(self, sig: signal.Signals = signal.SIGKILL) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, sig)
            self.process.wait(timeout=60)
        self.process = None


# The fault scenarios upload as a handful of students far faster than any real student would:
# the per-student rate limit, quota and uploads in progress would answer 429/413 instead of
# exercising the faults.
NO_UPLOAD_LIMITS = {
    "GRADEFORMER_UPLOADS_IN_PROGRESS": "1000",
    "GRADEFORMER_UPLOADS_PER_MINUTE": "1000000",
    "GRADEFORMER_UPLOAD_BURST": "1000000",
    "GRADEFORMER_STUDENT_QUOTA_BYTES": str(1 << 40),
}


class Server:
    """`gradeformer serve` on a free port, in its own process group (as under systemd)."""

    def __init__(self, env: dict[str, str], log: Path) -> None:
        self._env = {**os.environ, **NO_UPLOAD_LIMITS, **env}
        self._log = log
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 90) -> float:
        """Start and wait until /healthz answers; returns how long that took."""
        began = time.monotonic()
        self.process = subprocess.Popen(
            [sys.executable, "-m", "app.cli.main", "serve", "--port", str(self.port)],
            cwd=REPO,
            env=self._env,
            start_new_session=True,
            stdout=subprocess.DEVNULL,
            stderr=self._log.open("ab"),
        )
        while time.monotonic() - began < timeout:
            try:
                httpx.get(f"{self.base}/healthz", timeout=2)
                return time.monotonic() - began
            except httpx.HTTPError:
                time.sleep(0.2)
        self.signal_group(signal.SIGKILL)
        raise RuntimeError(f"the server did not start; see {self._log}")

    def grading_processes(self) -> list[int]:
        """The pool's processes: children of the fork server, a child of the server."""
        if self.process is None:
            return []
        return [g for c in children(self.process.pid) for g in children(c)]

    def signal_group(self, sig: signal.Signals, timeout: float = 120) -> float:
        """Signal the whole group, wait for the server to exit; returns how long it took."""
        began = time.monotonic()
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, sig)
            self.process.wait(timeout=timeout)
        self.process = None
        return time.monotonic() - began


FINAL = frozenset({"graded", "needs_review", "pending", "error"})


class Ledger:
    """Every upload the server acknowledged (id -> sha256 of the bytes sent), checked against
    the database: lost, left ungraded, graded twice on the same rubric version."""

    def __init__(self, database_url: str) -> None:
        self.url = database_url
        self.acknowledged: dict[int, str] = {}
        self.refused = 0

    def counts(self) -> dict[str, int]:
        engine = make_engine(self.url)
        try:
            with unit_of_work(make_sessionmaker(engine, read_only=True)) as session:
                rows = session.execute(
                    select(Submission.id, Submission.sha256, Submission.status)
                ).tuples()
                stored = {i: (sha, status) for i, sha, status in rows}
                twice = session.scalar(
                    select(func.count()).select_from(
                        select(GradingRun.submission_id)
                        .where(
                            GradingRun.regrade_job_id.is_(None),
                            GradingRun.submission_id.in_(sorted(self.acknowledged)),
                        )
                        .group_by(GradingRun.submission_id, GradingRun.rubric_version_id)
                        .having(func.count() > 1)
                        .subquery()
                    )
                )
        finally:
            engine.dispose()
        lost = [i for i, sha in self.acknowledged.items() if stored.get(i, ("", ""))[0] != sha]
        statuses = [stored[i][1] for i in self.acknowledged if i in stored]
        return {
            "acknowledged": len(self.acknowledged),
            "refused": self.refused,
            "lost": len(lost),
            "ungraded": sum(1 for s in statuses if s not in FINAL),
            "grader_error": sum(1 for s in statuses if s == "grader_error"),
            "graded_twice": int(twice or 0),
        }

    def wait_graded(self, timeout: float) -> float:
        """Until nothing acknowledged is left queued or grading; returns how long it took."""
        began = time.monotonic()
        while time.monotonic() - began < timeout:
            counts = self.counts()
            if counts["ungraded"] <= counts["grader_error"]:  # nothing queued or grading
                break
            time.sleep(0.5)
        return time.monotonic() - began
