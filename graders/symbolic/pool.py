"""A small pool of persistent symbolic workers, killed and replaced when a request times out.

Requests and replies are JSON lines over the worker's stdin/stdout: nothing the worker writes is
ever unpickled or evaluated here. Obtain the pool per process through
`context.resources.shared("symbolic", SymbolicPool)` so the ~1 s start-up is paid once.
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

    def _read_line(self, deadline: float) -> bytes | None:
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        while b"\n" not in self.buffer:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                return None
            ready, _, _ = select.select([fd], [], [], remaining)
            if not ready:
                return None
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
        line = self._read_line(time.monotonic() + timeout)
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
