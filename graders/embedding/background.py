"""Forward passes run by background threads, most urgent first (`SentenceEmbedder.submit`).

A caller that knows what it will need (a table's answers, then each batch's words) queues it
all, each job with a priority (the first row that needs it), and goes on with its own work;
the threads take the most urgent pass next. The order in which passes run changes no vector:
only how texts are grouped into passes does, and that is fixed when a job is queued.
"""

from __future__ import annotations

import heapq
import itertools
import threading
from collections.abc import Callable


class PriorityWorkers:
    """Daemon threads running queued tasks, lowest priority value first (queue order among
    equals). `enter` is called before the first task of a busy spell runs and `leave` after
    its last one ends (the process-wide BLAS thread limit is held in between)."""

    def __init__(self, threads: int, enter: Callable[[], None],
                 leave: Callable[[], None]) -> None:
        self._threads = max(1, threads)
        self._enter = enter
        self._leave = leave
        self._queue: list[tuple[int, int, Callable[[], None]]] = []
        self._order = itertools.count()
        self._waiting: dict[int, int] = {}  # a queued task's handle -> its priority now
        self._busy = 0  # tasks queued or running
        self._condition = threading.Condition()
        self._started: list[threading.Thread] = []

    def put(self, priority: int, task: Callable[[], None]) -> int:
        """Queue `task`; returns its handle (for `hurry`)."""
        with self._condition:
            if self._busy == 0:
                self._enter()
            self._busy += 1
            handle = next(self._order)
            self._waiting[handle] = priority
            heapq.heappush(self._queue, (priority, handle, task))
            if len(self._started) < self._threads:
                thread = threading.Thread(target=self._work, daemon=True,
                                          name=f"embed-background-{len(self._started)}")
                self._started.append(thread)
                thread.start()
            self._condition.notify()
            return handle

    def hurry(self, handle: int, priority: int) -> None:
        """Run a queued task no later than tasks of `priority` (no effect once it started)."""
        with self._condition:
            now = self._waiting.get(handle)
            if now is None or now <= priority:
                return
            task = next(t for p, h, t in self._queue if h == handle and p == now)
            self._waiting[handle] = priority
            heapq.heappush(self._queue, (priority, handle, task))  # the old entry is skipped

    @property
    def busy(self) -> bool:
        with self._condition:
            return self._busy > 0

    def _work(self) -> None:
        while True:
            with self._condition:
                while True:
                    while not self._queue:
                        self._condition.wait()
                    priority, handle, task = heapq.heappop(self._queue)
                    if self._waiting.get(handle) == priority:
                        del self._waiting[handle]
                        break
            try:
                task()  # a task reports its own errors (to whoever waits for its result)
            finally:
                with self._condition:
                    self._busy -= 1
                    if self._busy == 0:
                        self._leave()
