"""Grading processes that die: pools that are replaced, and documents retried alone.

A grading process can die (killed, out of memory, a document that crashes the reader). A
process pool then fails every call it held, innocent or not, and refuses new ones. Every path
that grades (the local executor, CLI import/submit, regrades) survives this through one
`WindowedPool`: calls wait outside the pool, at most `workers` inside, so a death fails only
those, and a broken pool is replaced (`Pools.replace`) for the calls still waiting. Each
call that was in it is retried alone after a backoff in a one-process pool (the quarantine),
where a death is the document's own: one that kills `max_attempts` processes ends as
`GradingProcessDied`, stored as `grader_error` with the reason. Calls waiting for the pool take
turns between students (`FairQueue`).
"""

from __future__ import annotations

import functools
import itertools
import logging
import queue
import threading
from collections import Counter, OrderedDict, deque
from collections.abc import Callable, Hashable
from concurrent.futures import CancelledError, Executor, Future
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Generic, Protocol, TypeVar

from app.grading.processes import let_go

log = logging.getLogger(__name__)

T = TypeVar("T")


def backoff(attempts: int) -> float:
    """Seconds before retrying a job that has killed `attempts` processes: 0.5 s doubling, at
    most 10 s."""
    return float(min(10.0, 0.5 * 2 ** max(0, attempts - 1)))


class GradingProcessDied(Exception):
    """A document killed `attempts` grading processes, the last ones while grading alone."""

    def __init__(self, attempts: int) -> None:
        super().__init__(f"The grading process died {attempts} times while grading this "
                         "submission (killed, or out of memory); it is stored, and a regrade "
                         "tries again once the cause is fixed.")


class Pools(Protocol):
    """Where grading finds its process pool, and a new one when that one broke."""

    @property
    def workers(self) -> int | None:
        """Processes of the pool (None: unknown, then calls are not held back)."""

    @property
    def max_attempts(self) -> int:
        """Processes a document may kill before it is given up."""

    def get(self) -> Executor: ...

    def replace(self, broken: Executor) -> None:
        """`broken` failed: the next `get` returns a working pool, if this source can start
        one (a no-op when `broken` was replaced already)."""

    def solo(self) -> Executor | None:
        """A fresh one-process pool for a retry alone (None: this source cannot start one)."""


class FixedPool:
    """One given executor (a thread pool in tests, a caller's own pool): never replaced, and no
    retry alone; a call that fails is the document's failure."""

    workers = None
    max_attempts = 1

    def __init__(self, executor: Executor) -> None:
        self._executor = executor

    def get(self) -> Executor:
        return self._executor

    def replace(self, broken: Executor) -> None:
        return None

    def solo(self) -> None:
        return None


def as_pools(pool: Executor | Pools) -> Pools:
    return FixedPool(pool) if isinstance(pool, Executor) else pool


class FairQueue(Generic[T]):
    """A queue that takes turns between students: one student's burst of uploads waits behind
    every other student's next job, not in front of it.

    Jobs are kept per owner (the student a submission is filed under, else its uploader). The
    next job goes to the owner with the fewest jobs already running (as the caller counts
    them), ties broken by the owner served longest ago (one never served first), then in the
    order owners first had work waiting: a student who arrives behind a flood waits for the
    jobs already started, not for the flood's next one too. Within one owner the order is first
    in, first out.
    """

    def __init__(self) -> None:
        self._by_owner: OrderedDict[Hashable, deque[T]] = OrderedDict()
        # owner -> its last turn, kept while it has none waiting (its jobs may still run):
        # one number per student the server has seen
        self._served: dict[Hashable, int] = {}
        self._turns = itertools.count()

    def push(self, owner: Hashable, item: T) -> None:
        self._by_owner.setdefault(owner, deque()).append(item)

    def pop(self, running: Callable[[Hashable], int]) -> tuple[Hashable, T]:
        """The next job and its owner, who goes to the back of the turn order."""
        # min keeps the first of equals: the turn order
        owner = min(self._by_owner, key=lambda o: (running(o), self._served.get(o, -1)))
        items = self._by_owner[owner]
        item = items.popleft()
        self._served[owner] = next(self._turns)
        if items:
            self._by_owner.move_to_end(owner)
        else:
            del self._by_owner[owner]
        return owner, item

    def take_all(self) -> list[T]:
        items = [item for items in self._by_owner.values() for item in items]
        self._by_owner.clear()
        self._served.clear()
        return items

    def __len__(self) -> int:
        return sum(map(len, self._by_owner.values()))


_Call = tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]


class WindowedPool(Executor):
    """An executor over `pools` that keeps at most `workers` calls in the pool, the others
    waiting their owner's turn (`submit_as`, `FairQueue`). A call that was in a broken pool
    fails with BrokenProcessPool; through `retrying`, it is retried alone."""

    def __init__(self, pools: Pools, stopping: threading.Event | None = None) -> None:
        self._pools = pools
        # No call waits inside the pool: the next one is chosen when a process frees, so another
        # student's job waits for at most one job, not for one queued behind the running ones.
        self._window = pools.workers
        self._lock = threading.RLock()  # a call already done runs its callback in submit
        self._waiting: FairQueue[_Call] = FairQueue()
        self._busy: Counter[Hashable] = Counter()  # calls in the pool, by owner
        self._closing = False  # shut down: failures are given back, not retried
        # A caller's event (a server's, shared by its regrades) is the caller's to set.
        self._own_stop = stopping is None
        self._stopping = stopping or threading.Event()
        # The quarantine: a one-process pool where retries run alone, one at a time, kept for
        # the next retry while its process lives.
        self._alone_pool: Executor | None = None
        self._retries: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._retry_thread: threading.Thread | None = None

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        return self.submit_as(None, functools.partial(fn, **kwargs) if kwargs else fn, *args)

    def submit_as(self, owner: Hashable, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        outer: Future[T] = Future()
        with self._lock:
            self._waiting.push(owner, (outer, fn, args))
            self._dispatch()
        return outer

    def retrying(self, owner: Hashable, fn: Callable[..., T], /, *args: Any, attempts: int = 0,
                 died: Callable[[], None] = lambda: None) -> Future[T | BaseException | None]:
        """`submit_as`, but a call whose process died (or could not start: the fork server
        gone) is retried alone after a backoff, `died` told of each death; one that killed
        `attempts` processes already starts there. Its future holds the result, the exception
        that failed it (GradingProcessDied: it kills every process that runs it), or None:
        given back, the pool was shut down meanwhile."""
        final: Future[T | BaseException | None] = Future()

        def alone(deaths: int) -> None:
            with self._lock:
                if self._retry_thread is None:
                    self._retry_thread = threading.Thread(target=self._retry_loop,
                                                          name="grading-retries", daemon=True)
                    self._retry_thread.start()
            self._retries.put(lambda: self._settle(final, None if self._closing else self._alone(
                fn, *args, attempts=deaths, died=died)))

        def done(inner: Future[T]) -> None:
            error = None if inner.cancelled() else inner.exception()
            if inner.cancelled():  # by the shutdown
                final.set_result(None)
            elif isinstance(error, BrokenProcessPool | OSError) and not self._closing:
                log.warning("a grading process died or could not start (%s); retrying its "
                            "call alone", type(error).__name__)
                died()
                alone(attempts + 1)
            else:
                self._settle(final, error if error is not None else inner.result())

        if attempts > 0:
            alone(attempts)
        else:
            self.submit_as(owner, fn, *args).add_done_callback(done)
        return final

    def _settle(self, final: Future[Any], result: Any) -> None:
        # A call that failed while the server stops (SIGTERM to the process group ends the fork
        # server and the readers) is given back: not the call's fault.
        final.set_result(None if self._closing and isinstance(result, BaseException) else result)

    def _retry_loop(self) -> None:
        while (retry := self._retries.get()) is not None:
            retry()
            if self._retries.empty():
                # Retries are rare: the quarantine's process (and its models) goes until needed.
                self._let_quarantine_go()

    def _alone(self, fn: Callable[..., T], *args: Any, attempts: int,
               died: Callable[[], None]) -> T | Exception | None:
        """`fn(*args)` alone in the quarantine, after it killed `attempts` processes already
        (`died` is told of each further one): a death there is the call's own. None if stopped
        meanwhile. What fails it is returned: GradingProcessDied once it killed
        `max_attempts`, BrokenProcessPool when the source cannot retry alone, what `fn`
        raised."""
        try:
            while attempts < self._pools.max_attempts:
                # A fresh process waits out a backoff (memory pressure passes); a live one is
                # reused.
                if ((self._alone_pool is None and self._stopping.wait(backoff(attempts)))
                        or self._stopping.is_set()):
                    return None
                pool = self._alone_pool = self._alone_pool or self._pools.solo()
                if pool is None:
                    return BrokenProcessPool("a grading process died; no retry alone here")
                try:
                    return pool.submit(fn, *args).result()
                except BrokenProcessPool:
                    self._alone_pool = None
                    pool.shutdown(wait=False, cancel_futures=False)
                    if self._stopping.is_set():
                        return None  # killed by the shutdown: not the document's doing
                    attempts += 1
                    died()
                    log.warning("a document killed its grading process alone (attempt %d)",
                                attempts)
        except Exception as exc:
            return exc
        log.error("a document killed %d grading processes; giving up", attempts)
        return GradingProcessDied(attempts)

    def _let_quarantine_go(self, *, kill: bool = False) -> None:
        pool, self._alone_pool = self._alone_pool, None
        let_go(pool, kill=kill)

    def _dispatch(self) -> None:
        with self._lock:
            while self._waiting and (self._window is None or self._busy.total() < self._window):
                owner, (outer, fn, args) = self._waiting.pop(self._busy.__getitem__)
                if not outer.set_running_or_notify_cancel():
                    continue  # cancelled while waiting
                try:
                    pool, inner = self._submit(fn, args)
                except Exception as exc:  # no pool takes work any more (shutting down)
                    outer.set_exception(exc)
                    continue
                self._busy[owner] += 1
                inner.add_done_callback(functools.partial(self._done, outer, pool, owner))

    def _submit(self, fn: Callable[..., Any], args: tuple[Any, ...]
                ) -> tuple[Executor, Future[Any]]:
        pool = self._pools.get()
        try:
            return pool, pool.submit(fn, *args)
        except (BrokenProcessPool, RuntimeError):
            # The pool broke (or was shut down) before this call reached it: not the call's fault.
            self._pools.replace(pool)
            fresh = self._pools.get()
            if fresh is pool:
                raise
            return fresh, fresh.submit(fn, *args)

    def _done(self, outer: Future[Any], pool: Executor, owner: Hashable,
              inner: Future[Any]) -> None:
        error = CancelledError() if inner.cancelled() else inner.exception()
        with self._lock:
            self._busy -= Counter([owner])  # an owner with none left is dropped
            if isinstance(error, BrokenProcessPool):
                self._pools.replace(pool)
            self._dispatch()
        if error is not None:
            outer.set_exception(error)
        else:
            outer.set_result(inner.result())

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Only the calls waiting here (the pools belong to their source); what fails from now
        on is given back, not retried."""
        with self._lock:
            self._closing = True
            waiting = self._waiting.take_all() if cancel_futures else []
        for outer, _, _ in waiting:
            outer.cancel()

    def close(self, *, kill: bool = False) -> None:
        """Stop retrying (calls waiting for a retry are given back; with the caller's event,
        once it is set) and let the quarantine's process go: once it is done (`kill`: now)."""
        if self._own_stop:
            self._stopping.set()
        self._let_quarantine_go(kill=kill)
        if self._retry_thread is not None:
            self._retries.put(None)
            self._retry_thread.join()

