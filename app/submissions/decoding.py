"""Reading every upload outside the API process: the server never parses student bytes.

A crafted 8 KB PDF took 33 s inside the server; a 200,000-deep JSON document, a 5,000-digit
integer or 2 MB of one line cost the event loop too. So every upload is read by a helper process
that answers with the document's format and the handout edition it declares, or why it cannot
be read (the parent turns that into the same 422 problem as ever):

- text, Markdown, LaTeX, Python and JSON are read by a warm "light" helper itself, under an
  address-space cap and an interval timer (a pool of them: forking a child per document would
  cost the API throughput, see docs/benchmarks.md);
- PDFs and notebooks (whatever they are named; a light helper that finds one hands it over) are
  read by a short-lived child that a "heavy" helper forks per document, with a memory cap, a
  page cap and a wall-clock deadline after which it is killed.

Which helper gets an upload is decided by looking at its name, type and bytes (never parsing).
The helpers start once from the clean fork server, single-threaded, so forking them is cheap and
safe. At most `concurrency` documents of each kind are read at once, and at most one of any one
student's. An upload that waits too long behind the same student's own documents gets 429 (their
own rate), one that then waits too long for a free reader 503 (the server is overloaded).
"""

from __future__ import annotations

import asyncio
import math
import multiprocessing
import os
import queue
import threading
from collections.abc import Callable, Hashable

from starlette.concurrency import run_in_threadpool

from app.errors import DomainError, Unavailable, UnreadableUpload
from app.submissions.limits import TooManyRequests
from app.submissions.reading import READY, DecodeLimits, Kind, Verdict, helper_main

_HEAVY_EXTENSIONS = (".pdf", ".ipynb")
_HEAVY_TYPES = frozenset({"application/pdf", "application/x-ipynb+json"})
# How long an upload may wait for its student's turn (429, Retry-After), then for a free reader
# (503, Retry-After), before it is turned away.
QUEUE_SECONDS = 30.0
HELPER_MARGIN_S = 10.0
START_SECONDS = 120.0
# A light read of a document this small is exchanged with its helper on the event loop (the
# request fits the socket's buffer, the answer is a line): no thread hop per upload. Bigger
# ones are sent from a worker thread.
INLINE_BYTES = 32 * 1024
LIGHT_PER_SLOT = 2
# What the fork server imports once before any helper forks from it (when the readers start it:
# a Celery API has no grading processes that would have), so no helper imports on its own.
READER_PRELOAD = ("app.submissions.reading", "pypdf")

__all__ = ["DecodeLimits", "DocumentReader", "needs_child"]


def needs_child(raw: bytes, filename: str | None, content_type: str | None) -> bool:
    """A cheap look at the upload: could reading it mean PDF or notebook parsing?"""
    name = (filename or "").lower()
    media = (content_type or "").split(";", 1)[0].strip().lower()
    return (
        name.endswith(_HEAVY_EXTENSIONS)
        or media in _HEAVY_TYPES
        or b"%PDF" in raw[:1024]
        or b'"cells"' in raw
    )


class _Helper:
    """A long-lived process (started once from the fork server: it pays the imports once):
    a light one reads text and JSON itself, a heavy one forks a limited child per document."""

    def __init__(self, kind: Kind) -> None:
        context = multiprocessing.get_context("forkserver")
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=helper_main, args=(theirs, kind), daemon=True)
        self.process.start()
        theirs.close()

    def wait_ready(self) -> None:
        """Until the helper has imported its readers (a fork server started from nothing, on
        a loaded host, takes seconds): that time is not charged to any document's deadline."""
        if not self.conn.poll(START_SECONDS) or self.conn.recv() != READY:
            raise TimeoutError("the document reader did not start")

    def decode(
        self, raw: bytes, filename: str | None, content_type: str | None, limits: DecodeLimits
    ) -> tuple[Verdict, bool]:
        self.conn.send((raw, filename, content_type, limits))
        # The helper enforces the deadline; this margin only catches a helper that hangs.
        if not self.conn.poll(limits.seconds + HELPER_MARGIN_S):
            raise TimeoutError("the document reader did not answer")
        answer: tuple[Verdict, bool] = self.conn.recv()
        return answer

    def close(self) -> None:
        self.conn.close()
        if self.process.is_alive():
            self.process.kill()
        self.process.join(5)

    def kill(self) -> None:
        """Killed, without waiting for it to go (the fork server, its parent, reaps it)."""
        self.conn.close()
        if self.process.is_alive():
            self.process.kill()


def _explain(verdict: str, value: str, limits: DecodeLimits) -> str:
    if verdict == "ok":
        return value
    if verdict == "timeout":
        raise UnreadableUpload(
            f"The document could not be read within {limits.seconds:g} s; upload a smaller or "
            "simpler file (or a text transcript)."
        )
    if verdict == "died":
        raise UnreadableUpload(
            "The document needs more memory or time to read than is allowed; upload a smaller "
            "or simpler file (or a text transcript)."
        )
    raise UnreadableUpload(value)


class _Pool:
    """Helpers of one kind: at most `size` reading at once, kept warm between documents."""

    def __init__(self, kind: Kind, size: int) -> None:
        self.kind: Kind = kind
        self.slots = asyncio.Semaphore(size)
        self._idle: queue.SimpleQueue[_Helper] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._all: list[_Helper] = []
        self._closed = False

    def decode(
        self, raw: bytes, filename: str | None, content_type: str | None, limits: DecodeLimits
    ) -> Verdict:
        """On a worker thread, holding a slot: one document through an idle helper."""
        helper = self._take()
        try:
            verdict, retire = helper.decode(raw, filename, content_type, limits)
        except (OSError, EOFError, TimeoutError) as exc:  # the helper itself failed: replace it
            self._discard(helper)
            raise Unavailable("Documents cannot be read right now; try again shortly.") from exc
        self._done(helper, retire)
        return verdict

    async def decode_inline(
        self, raw: bytes, filename: str | None, content_type: str | None, limits: DecodeLimits
    ) -> Verdict:
        """On the event loop, holding a slot, for a small document: send it to an idle helper
        and wait for the helper's answer to be readable (the loop never blocks on it)."""
        helper = self._idle_helper() or await self._started()
        loop = asyncio.get_running_loop()
        answered: asyncio.Future[None] = loop.create_future()
        fd = helper.conn.fileno()

        def readable() -> None:
            if not answered.done():
                answered.set_result(None)

        try:
            helper.conn.send((raw, filename, content_type, limits))  # fits the pipe's buffer
            loop.add_reader(fd, readable)
            try:
                await asyncio.wait_for(answered, limits.seconds + HELPER_MARGIN_S)
            finally:
                loop.remove_reader(fd)
                # uvloop (what `serve` runs) leaves a watched descriptor non-blocking: a bigger
                # document later sent to this helper from a worker thread would fail with
                # BlockingIOError once the pipe filled, and its student would get a 503.
                os.set_blocking(fd, True)
            answer: tuple[Verdict, bool] = helper.conn.recv()
            verdict, retire = answer
        except (OSError, EOFError, TimeoutError) as exc:
            await run_in_threadpool(self._discard, helper)
            raise Unavailable("Documents cannot be read right now; try again shortly.") from exc
        except asyncio.CancelledError:
            # Its answer may still come, to whoever sends the helper the next document: the
            # helper goes (killed here, not joined: a cancelled task may not wait).
            helper.kill()
            self._forget(helper)
            raise
        if retire:
            await run_in_threadpool(self._discard, helper)
        else:
            self._idle.put(helper)
        return verdict

    async def _started(self) -> _Helper:
        """A helper started (forking: on a worker thread) for a read on the event loop."""
        taking = asyncio.ensure_future(run_in_threadpool(self._take))
        try:
            return await asyncio.shield(taking)
        except asyncio.CancelledError:
            # The read is abandoned, not the helper: once ready, it waits for the next.
            taking.add_done_callback(self._keep)
            raise

    def _keep(self, taking: asyncio.Future[_Helper]) -> None:
        if not taking.cancelled() and taking.exception() is None:
            self._idle.put(taking.result())

    def _done(self, helper: _Helper, retire: bool) -> None:
        if retire:
            self._discard(helper)
        else:
            self._idle.put(helper)

    def _idle_helper(self) -> _Helper | None:
        """An idle helper that is still alive (one that died idle, killed by the machine's
        out-of-memory killer or an operator, is dropped, not handed a document)."""
        while True:
            try:
                helper = self._idle.get_nowait()
            except queue.Empty:
                return None
            if helper.process.is_alive():
                return helper
            helper.conn.close()
            with self._lock:
                if helper in self._all:
                    self._all.remove(helper)

    def _take(self) -> _Helper:
        helper = self._idle_helper()
        if helper is not None:
            return helper
        with self._lock:  # the semaphore bounds how many exist: one per slot
            if self._closed:
                raise Unavailable("The server is shutting down.")
            try:
                helper = _Helper(self.kind)
            except OSError as exc:
                raise Unavailable("Documents cannot be read right now; try again.") from exc
            self._all.append(helper)
        try:
            helper.wait_ready()
        except (OSError, EOFError, TimeoutError) as exc:
            self._discard(helper)
            raise Unavailable("Documents cannot be read right now; try again.") from exc
        return helper

    def _discard(self, helper: _Helper) -> None:
        helper.close()
        self._forget(helper)

    def _forget(self, helper: _Helper) -> None:
        with self._lock:
            if helper in self._all:
                self._all.remove(helper)

    def warm(self, count: int, first: threading.Event) -> None:
        """Start up to `count` helpers and hand each out once it is ready, so the first uploads
        start none; `first` is set once one is (or none will be)."""
        started = []
        try:
            with self._lock:
                while not self._closed and len(self._all) < count:
                    helper = _Helper(self.kind)
                    self._all.append(helper)
                    started.append(helper)
            for helper in started:
                try:
                    helper.wait_ready()
                except (OSError, EOFError, TimeoutError):
                    self._discard(helper)
                    continue
                self._idle.put(helper)
                first.set()
        finally:
            first.set()

    def close(self) -> None:
        with self._lock:
            self._closed = True
            helpers, self._all = self._all, []
        for helper in helpers:
            helper.close()


def _busy() -> Unavailable:
    return Unavailable("Too many documents are being read right now; try again in a minute.",
                       retry_after=max(1, math.ceil(QUEUE_SECONDS)))


async def _acquire(lock: asyncio.Lock | asyncio.Semaphore, wait: float,
                   refusal: Callable[[], DomainError] = _busy) -> None:
    """Take `lock` within `wait` seconds, else `refusal`; a free one at once (no timer task)."""
    if not lock.locked():
        await lock.acquire()
        return
    try:
        await asyncio.wait_for(lock.acquire(), max(wait, 0.0))
    except TimeoutError:
        raise refusal() from None


class DocumentReader:
    """Bounded concurrency for reading uploads in helpers; the event loop never parses."""

    def __init__(self, limits: DecodeLimits, concurrency: int) -> None:
        self.limits = limits
        self._concurrency = concurrency
        self._pools: dict[Kind, _Pool] = {
            # Light reads take a millisecond but a trip to another process each: twice as many
            # helpers keep uploads flowing while some wait for a core.
            "light": _Pool("light", LIGHT_PER_SLOT * concurrency),
            "heavy": _Pool("heavy", concurrency),
        }
        # Per owner: the lock that takes turns, and how many of their uploads hold or wait on it.
        self._turns: dict[Hashable, tuple[asyncio.Lock, int]] = {}

    def start(self, wait: float) -> bool:
        """Start the light helpers (every upload needs one; heavy ones start on demand) from a
        fork server that has the readers imported, and return once one is ready (or after
        `wait` seconds: then uploads start their own), the others getting ready on a thread.
        Whether one is ready."""
        # Ignored when the fork server runs already (a local API's grading processes started
        # it, with the readers among its preloads).
        multiprocessing.get_context("forkserver").set_forkserver_preload(list(READER_PRELOAD))
        first = threading.Event()
        threading.Thread(target=self._pools["light"].warm,
                         args=(LIGHT_PER_SLOT * self._concurrency, first),
                         name="document-readers", daemon=True).start()
        return first.wait(wait)

    async def read_document(
        self, raw: bytes, filename: str | None, content_type: str | None,
        owner: Hashable = None,
    ) -> tuple[str, str | None]:
        """The document's format and the handout edition it declares, read in a helper (or
        UnreadableUpload saying why not). One owner (a student) has at most one document
        reading or waiting for a slot at a time: their other uploads wait behind it, not in
        front of another student's."""
        loop = asyncio.get_running_loop()
        turn, waiting = self._turns.get(owner, (asyncio.Lock(), 0))
        self._turns[owner] = (turn, waiting + 1)
        try:
            await _acquire(turn, QUEUE_SECONDS, self._own_queue)
            # The wait for a reader is the server's queue: timed from the student's turn, so
            # their own documents before it never make it a 503.
            deadline = loop.time() + QUEUE_SECONDS
            try:
                kind: Kind = "heavy" if needs_child(raw, filename, content_type) else "light"
                verdict, value, handout = await self._read(kind, raw, filename, content_type,
                                                           deadline - loop.time())
                if verdict == "heavy":  # a PDF or notebook in disguise: a forked child reads it
                    verdict, value, handout = await self._read(
                        "heavy", raw, filename, content_type, deadline - loop.time())
                return _explain(verdict, value, self.limits), handout
            finally:
                turn.release()
        finally:
            lock, count = self._turns[owner]
            if count <= 1:
                del self._turns[owner]
            else:
                self._turns[owner] = (lock, count - 1)

    def _own_queue(self) -> TooManyRequests:
        return TooManyRequests(
            "Your earlier uploads are still being read; try again once they are answered.",
            retry_after=max(1, math.ceil(self.limits.seconds)))

    async def _read(
        self, kind: Kind, raw: bytes, filename: str | None, content_type: str | None,
        wait: float,
    ) -> Verdict:
        pool = self._pools[kind]
        await _acquire(pool.slots, wait)
        try:
            if kind == "light" and len(raw) <= INLINE_BYTES:
                return await pool.decode_inline(raw, filename, content_type, self.limits)
            return await run_in_threadpool(self._decode, kind, raw, filename, content_type)
        finally:
            pool.slots.release()

    def _decode(
        self, kind: Kind, raw: bytes, filename: str | None, content_type: str | None
    ) -> Verdict:
        return self._pools[kind].decode(raw, filename, content_type, self.limits)


    def close(self) -> None:
        for pool in self._pools.values():
            pool.close()
