"""A private Redis and a real Celery worker for the fault-injection tests and benchmarks/faults.py:
both can be stopped, killed and restarted without touching the shared Redis."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import redis

REPO = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def children(pid: int) -> list[int]:
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found.extend(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
    return found


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
