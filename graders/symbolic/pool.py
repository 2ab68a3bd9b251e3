"""A small pool of persistent symbolic workers, killed and replaced when a request times out.

Requests and replies are JSON lines over the worker's stdin/stdout: nothing the worker writes is
ever unpickled or evaluated here. A request's time limit is CPU time the worker spends on it
(read from /proc), with ten times as much wall time as a backstop: on a machine busy with a bulk
regrade a simple check that waits for a core is not "too long"; one that computes is. Obtain
the pool per process through `context.resources.shared("symbolic", SymbolicPool)` so the ~1 s
start-up is paid once.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import select
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

WORKER = Path(__file__).with_name("worker.py")
DEFAULT_TIMEOUT = 3.0
START_TIMEOUT = 30.0
MAX_REQUEST = 8000
MAX_REPLY = 64_000
WALL_FACTOR = 10.0  # wall-time backstop, in multiples of the CPU budget
POLL = 0.05  # how often the worker's CPU time is read while waiting for its reply
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU seconds of a process, or None where /proc cannot tell."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
        return (int(fields[11]) + int(fields[12])) / _TICKS
    except (OSError, IndexError, ValueError):
        return None


class _Worker:
    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-I", str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
            env={"PATH": os.environ.get("PATH", ""), "PYTHONHASHSEED": "0"},
        )
        self.buffer = b""
        self.started = False

    def _read_line(self, deadline: float, cpu_budget: float | None = None) -> bytes | None:
        """The next line, or None past `deadline` (wall) or once the worker has spent
        `cpu_budget` CPU seconds since the call."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        cpu_start = None if cpu_budget is None else _cpu_seconds(self.process.pid)
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            wait = remaining if cpu_start is None else min(remaining, POLL)
            ready, _, _ = select.select([fd], [], [], wait)
            if not ready:
                if cpu_start is not None and cpu_budget is not None:
                    used = _cpu_seconds(self.process.pid)
                    if used is None or used - cpu_start >= cpu_budget:
                        return None
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                return None
            self.buffer += chunk
            if len(self.buffer) > MAX_REPLY:
                return None
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line

    def request(self, payload: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        if not self.started:
            if self._read_line(time.monotonic() + START_TIMEOUT) is None:
                return None
            self.started = True
        assert self.process.stdin is not None
        try:
            self.process.stdin.write(json.dumps(payload).encode() + b"\n")
            self.process.stdin.flush()
        except (BrokenPipeError, OSError):
            return None
        if _cpu_seconds(self.process.pid) is None:  # no /proc: wall time is the limit
            line = self._read_line(time.monotonic() + timeout)
        else:
            line = self._read_line(time.monotonic() + timeout * WALL_FACTOR, cpu_budget=timeout)
        if line is None:
            return None
        try:
            reply = json.loads(line)
        except json.JSONDecodeError:
            return None
        return reply if isinstance(reply, dict) else None

    def kill(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.process.pid, 9)
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                stream.close()


class SymbolicPool:
    def __init__(self, size: int = 1, timeout: float = DEFAULT_TIMEOUT) -> None:
        self.timeout = timeout
        self.size = size
        self._idle: queue.Queue[_Worker] = queue.Queue()
        self._lock = threading.Lock()
        self._closed = False
        self.restarts = 0
        for _ in range(size):
            self._idle.put(_Worker())

    def run(self, payload: dict[str, Any], timeout: float | None = None) -> dict[str, Any]:
        """The worker's reply, or {"ok": False, "error": ...} on timeout or oversized input."""
        if self._closed:
            raise RuntimeError("the symbolic pool is closed")
        if len(json.dumps(payload)) > MAX_REQUEST:
            return {"ok": False, "error": "expression too long"}
        worker = self._idle.get()
        try:
            reply = worker.request(payload, timeout if timeout is not None else self.timeout)
            if reply is None:
                worker.kill()
                with self._lock:
                    self.restarts += 1
                worker = _Worker()
                return {"ok": False, "error": "timeout"}
            return reply
        finally:
            self._idle.put(worker)

    def close(self) -> None:
        self._closed = True
        while True:
            try:
                worker = self._idle.get_nowait()
            except queue.Empty:
                break
            worker.kill()

    def __enter__(self) -> SymbolicPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
