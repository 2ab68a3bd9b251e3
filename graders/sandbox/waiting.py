"""How long a job waited for a processor: the machine's load, not the student's code.

Linux counts, for every task, the time it was ready to run but not running (the second field
of /proc/<pid>/schedstat, in nanoseconds; 0 at fork). The trusted parent samples it for the
zygote and for the job's child (the zygote's only child during a job) while it waits for the
answer: a job stopped at its wall-clock limit after waiting most of it for a processor was
stopped by the load, and is run again with a longer limit (graders/sandbox/pool.py) instead
of costing the student the points. Where /proc cannot be read, nothing is counted (the wall
clock alone decides, as before).
"""

from __future__ import annotations

import time


def _read(path: str) -> str | None:
    try:
        with open(path) as fh:
            return fh.read()
    except OSError:  # gone (reaped), or no such file on this kernel
        return None


def run_delay_s(pid: int) -> float | None:
    text = _read(f"/proc/{pid}/schedstat")
    fields = text.split() if text else []
    return int(fields[1]) / 1e9 if len(fields) >= 2 and fields[1].isdigit() else None


def children(pid: int) -> list[int]:
    text = _read(f"/proc/{pid}/task/{pid}/children")
    return [int(p) for p in text.split()] if text else []


class WaitMeter:
    """The seconds a zygote and its job's child have waited for a processor since `start`."""

    def __init__(self, zygote_pid: int) -> None:
        self._zygote = zygote_pid
        self._zygote_start = run_delay_s(zygote_pid)
        self._earlier = set(children(zygote_pid))  # a child of the previous job, not yet reaped
        self._child: dict[int, float] = {}  # this job's children: their last sampled delay
        self.sampled = time.monotonic()
        self.last = 0.0  # seconds waited, at the last sample

    def sample(self) -> float:
        for pid in children(self._zygote):
            if pid not in self._earlier:
                delay = run_delay_s(pid)
                if delay is not None:
                    self._child[pid] = max(delay, self._child.get(pid, 0.0))
        self.sampled = time.monotonic()
        self.last = self.waited()
        return self.last

    def waited(self) -> float:
        zygote = run_delay_s(self._zygote)
        own = (
            0.0
            if zygote is None or self._zygote_start is None
            else max(0.0, zygote - self._zygote_start)
        )
        return own + sum(self._child.values())
