"""Peak resident memory of a process tree, sampled from /proc (Linux)."""

from __future__ import annotations

import threading
from pathlib import Path


def children(pid: int) -> list[int]:
    """Direct children of a process (every thread's), from /proc."""
    found: list[int] = []
    try:
        tasks = list(Path(f"/proc/{pid}/task").glob("*"))
    except OSError:  # the process ended while we looked: it has no children now
        return found
    for task in tasks:
        try:
            found.extend(int(c) for c in (task / "children").read_text().split())
        except OSError:
            continue
    return found


def _rss_kib(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def tree_rss_kib(root: int) -> tuple[int, int]:
    """(sum over the tree, largest single process) in KiB."""
    stack, seen, total, largest = [root], set(), 0, 0
    while stack:
        pid = stack.pop()
        if pid in seen:
            continue
        seen.add(pid)
        rss = _rss_kib(pid)
        total += rss
        largest = max(largest, rss)
        stack.extend(children(pid))
    return total, largest


class PeakRss:
    """Samples a process tree in a thread until stopped; keeps the peaks."""

    def __init__(self, root: int, interval: float = 0.2) -> None:
        self.root, self.interval = root, interval
        self.peak_total_kib = 0
        self.peak_single_kib = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            total, single = tree_rss_kib(self.root)
            self.peak_total_kib = max(self.peak_total_kib, total)
            self.peak_single_kib = max(self.peak_single_kib, single)

    def __enter__(self) -> PeakRss:
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
