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
student's; an upload that waits too long gets 503.
"""

from __future__ import annotations

import asyncio
import json
import logging
import multiprocessing
import multiprocessing.connection
import os
import queue
import resource
import select
import signal
import threading
import time
from collections.abc import Callable, Hashable
from dataclasses import dataclass
from types import FrameType
from typing import Literal

from starlette.concurrency import run_in_threadpool

from app.errors import Unavailable, UnreadableUpload
from graders.documents.formats import DecodedDocument, decode_document
from graders.documents.model import InvalidDocument, NeedsReader

_HEAVY_EXTENSIONS = (".pdf", ".ipynb")
_HEAVY_TYPES = frozenset({"application/pdf", "application/x-ipynb+json"})
# How long an upload may wait for a free reader before it is turned away (503, Retry-After).
QUEUE_SECONDS = 30.0
MESSAGE_CHARS = 500
HELPER_MARGIN_S = 10.0
# A light helper whose resident memory grew this much past its start (what reading left behind
# in the allocator) is replaced after its answer, like one that ran out of memory.
LIGHT_GROWTH_BYTES = 128 * 1024 * 1024

Kind = Literal["light", "heavy"]


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


@dataclass(frozen=True)
class DecodeLimits:
    seconds: float
    max_pages: int
    memory_bytes: int


# (verdict, the format or why not, the handout edition the document declares). Verdicts: ok,
# invalid, timeout, died, and "heavy" from a light helper (the format: a PDF or notebook).
Verdict = tuple[str, str, str | None]
TOO_MUCH_MEMORY = "the document needs too much memory to read"


class _Expired(Exception):
    """A light helper's interval timer ran out while it was reading."""


def _mapped_bytes() -> tuple[int, int]:
    """This process's address space and resident memory, in bytes."""
    with open("/proc/self/statm") as statm:
        size, resident = statm.read().split()[:2]
    page = resource.getpagesize()
    return int(size) * page, int(resident) * page


def _judge(read: Callable[[], DecodedDocument]) -> Verdict:
    """What reading a document said, as data: the parsers' failures included."""
    try:
        document = read()
    except NeedsReader as exc:
        return ("heavy", exc.format, None)
    except InvalidDocument as exc:
        return ("invalid", str(exc)[:MESSAGE_CHARS], None)
    except MemoryError:
        return ("invalid", TOO_MUCH_MEMORY, None)
    except RecursionError:
        return ("invalid", "the document is nested too deeply to read", None)
    except _Expired:
        return ("timeout", "", None)
    except Exception as exc:  # a parser library's own error on a malformed file
        return ("invalid", f"not a readable document ({type(exc).__name__})", None)
    return ("ok", document.format, document.handout)


def _verdict(
    raw: bytes, filename: str | None, content_type: str | None, limits: DecodeLimits
) -> Verdict:
    """In the forked child: bound this process, read the document, say what it is and which
    handout edition it declares (a notebook's metadata)."""
    # Address space: what the helper already mapped, plus the budget for this document.
    mapped, _ = _mapped_bytes()
    resource.setrlimit(resource.RLIMIT_AS, (mapped + limits.memory_bytes,) * 2)
    cpu = int(limits.seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    return _judge(lambda: decode_document(raw, filename, content_type,
                                          max_pages=limits.max_pages))


def _decode_forked(
    raw: bytes, filename: str | None, content_type: str | None, limits: DecodeLimits
) -> Verdict:
    """In the heavy helper: fork a child for one document, kill it at the deadline."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: the helper is single-threaded, so forking it is safe
        try:
            os.close(read_end)
            os.write(write_end, json.dumps(_verdict(raw, filename, content_type, limits)).encode())
        finally:
            os._exit(0)
    os.close(write_end)
    deadline = time.monotonic() + limits.seconds
    received = b""
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                os.kill(pid, signal.SIGKILL)
                return ("timeout", "", None)
            ready, _, _ = select.select([read_end], [], [], remaining)
            if ready:
                data = os.read(read_end, 65536)
                if not data:
                    break
                received += data
    finally:
        os.close(read_end)
        os.waitpid(pid, 0)
    if not received:  # killed by its memory or CPU limit
        return ("died", "", None)
    verdict, value, handout = json.loads(received)
    return (str(verdict), str(value), None if handout is None else str(handout))


def _expire(_signum: int, _frame: FrameType | None) -> None:
    raise _Expired


def _decode_light(
    raw: bytes, filename: str | None, content_type: str | None, limits: DecodeLimits,
    baseline: int,
) -> tuple[Verdict, bool]:
    """In a light helper, in its own process: read a text or JSON document (bounded in depth
    and digits by the reader) under a soft address-space cap of what is mapped now plus the
    budget and an interval timer of the deadline. Also: whether to retire this helper."""
    mapped, _ = _mapped_bytes()
    saved = resource.getrlimit(resource.RLIMIT_AS)
    soft = mapped + limits.memory_bytes
    hard = saved[1]
    resource.setrlimit(resource.RLIMIT_AS,
                       (soft if hard == resource.RLIM_INFINITY else min(soft, hard), hard))
    signal.setitimer(signal.ITIMER_REAL, limits.seconds)
    try:
        verdict = _judge(lambda: decode_document(raw, filename, content_type, light_only=True))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        resource.setrlimit(resource.RLIMIT_AS, saved)
    _, resident = _mapped_bytes()
    spent = verdict[0] == "timeout" or verdict[1] == TOO_MUCH_MEMORY
    return verdict, spent or resident - baseline > LIGHT_GROWTH_BYTES


def _helper_main(conn: multiprocessing.connection.Connection, kind: Kind) -> None:
    # The PDF library logs every repair it attempts on a malformed file: noise, not news.
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    signal.signal(signal.SIGALRM, _expire)
    _, baseline = _mapped_bytes()
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        raw, filename, content_type, limits = request
        if kind == "heavy":
            conn.send((_decode_forked(raw, filename, content_type, limits), False))
            continue
        try:
            verdict, retire = _decode_light(raw, filename, content_type, limits, baseline)
        except _Expired:  # the timer ran out just as reading ended: retire, to be sure
            verdict, retire = ("timeout", "", None), True
        conn.send((verdict, retire))
        if retire:
            return


class _Helper:
    """A long-lived process (started once from the fork server: it pays the imports once):
    a light one reads text and JSON itself, a heavy one forks a limited child per document."""

    def __init__(self, kind: Kind) -> None:
        context = multiprocessing.get_context("forkserver")
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=_helper_main, args=(theirs, kind), daemon=True)
        self.process.start()
        theirs.close()

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
        if retire:
            self._discard(helper)
        else:
            self._idle.put(helper)
        return verdict

    def _take(self) -> _Helper:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._lock:  # the semaphore bounds how many exist: one per slot
            if self._closed:
                raise Unavailable("The server is shutting down.")
            try:
                helper = _Helper(self.kind)
            except OSError as exc:
                raise Unavailable("Documents cannot be read right now; try again.") from exc
            self._all.append(helper)
            return helper

    def _discard(self, helper: _Helper) -> None:
        helper.close()
        with self._lock:
            if helper in self._all:
                self._all.remove(helper)

    def warm(self, count: int, limits: DecodeLimits) -> None:
        """Start up to `count` idle helpers now and have each read a line (its imports done),
        so the first uploads wait for none."""
        with self._lock:
            missing = 0 if self._closed else max(0, count - len(self._all))
        started = []
        for _ in range(missing):
            helper = _Helper(self.kind)
            with self._lock:
                if self._closed:
                    helper.close()
                    break
                self._all.append(helper)
            started.append(helper)
        for helper in started:
            try:
                helper.decode(b"ready\n", "ready.txt", None, limits)
            except (OSError, EOFError, TimeoutError):
                self._discard(helper)
                continue
            self._idle.put(helper)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            helpers, self._all = self._all, []
        for helper in helpers:
            helper.close()


class DocumentReader:
    """Bounded concurrency for reading uploads in helpers; the event loop never parses."""

    def __init__(self, limits: DecodeLimits, concurrency: int) -> None:
        self.limits = limits
        self._concurrency = concurrency
        self._pools: dict[Kind, _Pool] = {
            "light": _Pool("light", concurrency), "heavy": _Pool("heavy", concurrency),
        }
        # Per owner: the lock that takes turns, and how many of their uploads hold or wait on it.
        self._turns: dict[Hashable, tuple[asyncio.Lock, int]] = {}

    def warm(self) -> None:
        """Start the light helpers (every upload needs one); heavy ones start on demand."""
        self._pools["light"].warm(self._concurrency, self.limits)

    async def read_document(
        self, raw: bytes, filename: str | None, content_type: str | None,
        owner: Hashable = None,
    ) -> tuple[str, str | None]:
        """The document's format and the handout edition it declares, read in a helper (or
        UnreadableUpload saying why not). One owner (a student) has at most one document
        reading or waiting for a slot at a time: their other uploads wait behind it, not in
        front of another student's."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + QUEUE_SECONDS
        turn, waiting = self._turns.get(owner, (asyncio.Lock(), 0))
        self._turns[owner] = (turn, waiting + 1)
        try:
            try:
                await asyncio.wait_for(turn.acquire(), QUEUE_SECONDS)
            except TimeoutError:
                raise self._busy() from None
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

    async def _read(
        self, kind: Kind, raw: bytes, filename: str | None, content_type: str | None,
        wait: float,
    ) -> Verdict:
        pool = self._pools[kind]
        try:
            await asyncio.wait_for(pool.slots.acquire(), max(wait, 0.0))
        except TimeoutError:
            raise self._busy() from None
        try:
            return await run_in_threadpool(self._decode, kind, raw, filename, content_type)
        finally:
            pool.slots.release()

    def _decode(
        self, kind: Kind, raw: bytes, filename: str | None, content_type: str | None
    ) -> Verdict:
        return self._pools[kind].decode(raw, filename, content_type, self.limits)

    @staticmethod
    def _busy() -> Unavailable:
        return Unavailable("Too many documents are being read right now; try again in a minute.",
                           retry_after=int(QUEUE_SECONDS))

    def close(self) -> None:
        for pool in self._pools.values():
            pool.close()
