"""Checking that a PDF or notebook upload can be read, outside the API process.

PDF text extraction and notebook validation are the expensive, library-heavy parses of student
bytes (a crafted 8 KB PDF took 33 s inside the server, others raised unexpected errors). Each
such upload is read by a short-lived child with a memory cap, a page cap and a wall-clock
deadline after which it is killed. The children are forked by helper processes (one per slot,
started once from the clean fork server, single-threaded, so forking them is cheap and safe).
At most `concurrency` documents are read at once, and at most one of any one student's; an upload
that waits too long gets 503.
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
from collections.abc import Hashable
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool

from app.errors import Unavailable, UnreadableUpload
from graders.documents.formats import decode_document
from graders.documents.model import InvalidDocument

_HEAVY_EXTENSIONS = (".pdf", ".ipynb")
_HEAVY_TYPES = frozenset({"application/pdf", "application/x-ipynb+json"})
# How long an upload may wait for a free reader before it is turned away (503, Retry-After).
QUEUE_SECONDS = 30.0
MESSAGE_CHARS = 500
HELPER_MARGIN_S = 10.0


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


# (verdict, the format or why not, the handout edition the document declares)
Verdict = tuple[str, str, str | None]


def _verdict(
    raw: bytes, filename: str | None, content_type: str | None, limits: DecodeLimits
) -> Verdict:
    """In the forked child: bound this process, read the document, say what it is and which
    handout edition it declares (a notebook's metadata)."""
    # Address space: what the helper already mapped, plus the budget for this document.
    with open("/proc/self/statm") as statm:
        mapped = int(statm.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (mapped + limits.memory_bytes,) * 2)
    cpu = int(limits.seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    try:
        document = decode_document(raw, filename, content_type, max_pages=limits.max_pages)
    except InvalidDocument as exc:
        return ("invalid", str(exc)[:MESSAGE_CHARS], None)
    except MemoryError:
        return ("invalid", "the document needs too much memory to read", None)
    except RecursionError:
        return ("invalid", "the document is nested too deeply to read", None)
    except Exception as exc:  # a parser library's own error on a malformed file
        return ("invalid", f"not a readable document ({type(exc).__name__})", None)
    return ("ok", document.format, document.handout)


def _decode_forked(
    raw: bytes, filename: str | None, content_type: str | None, limits: DecodeLimits
) -> Verdict:
    """In the helper: fork a child for one document, kill it at the deadline."""
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


def _helper_main(conn: multiprocessing.connection.Connection) -> None:
    # The PDF library logs every repair it attempts on a malformed file: noise, not news.
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    while True:
        try:
            request = conn.recv()
        except (EOFError, OSError):
            return
        conn.send(_decode_forked(*request))


class _Helper:
    """A long-lived process (started once from the fork server: it pays the imports once)
    that forks one short-lived, limited child per document."""

    def __init__(self) -> None:
        context = multiprocessing.get_context("forkserver")
        self.conn, theirs = context.Pipe()
        self.process = context.Process(target=_helper_main, args=(theirs,), daemon=True)
        self.process.start()
        theirs.close()

    def decode(
        self, raw: bytes, filename: str | None, content_type: str | None, limits: DecodeLimits
    ) -> Verdict:
        self.conn.send((raw, filename, content_type, limits))
        # The helper enforces the deadline; this margin only catches a helper that hangs.
        if not self.conn.poll(limits.seconds + HELPER_MARGIN_S):
            raise TimeoutError("the document reader did not answer")
        verdict: Verdict = self.conn.recv()
        return verdict

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


class DocumentReader:
    """Bounded concurrency for child decodes; the event loop never waits on a parse."""

    def __init__(self, limits: DecodeLimits, concurrency: int) -> None:
        self.limits = limits
        self._slots = asyncio.Semaphore(concurrency)
        self._idle: queue.SimpleQueue[_Helper] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._all: list[_Helper] = []
        self._closed = False
        # Per owner: the lock that takes turns, and how many of their uploads hold or wait on it.
        self._turns: dict[Hashable, tuple[asyncio.Lock, int]] = {}

    async def read_document(
        self, raw: bytes, filename: str | None, content_type: str | None,
        owner: Hashable = None,
    ) -> tuple[str, str | None]:
        """The document's format and the handout edition it declares, read in a child. One
        owner (a student) has at most one document reading or waiting for a slot at a time:
        their other uploads wait behind it, not in front of another student's."""
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
                try:
                    await asyncio.wait_for(self._slots.acquire(), deadline - loop.time())
                except TimeoutError:
                    raise self._busy() from None
                try:
                    return await run_in_threadpool(self._decode, raw, filename, content_type)
                finally:
                    self._slots.release()
            finally:
                turn.release()
        finally:
            lock, count = self._turns[owner]
            if count <= 1:
                del self._turns[owner]
            else:
                self._turns[owner] = (lock, count - 1)

    @staticmethod
    def _busy() -> Unavailable:
        return Unavailable("Too many documents are being read right now; try again in a minute.",
                           retry_after=int(QUEUE_SECONDS))

    def _decode(
        self, raw: bytes, filename: str | None, content_type: str | None
    ) -> tuple[str, str | None]:
        helper = self._take()
        try:
            verdict, value, handout = helper.decode(raw, filename, content_type, self.limits)
        except (OSError, EOFError, TimeoutError) as exc:  # the helper itself failed: replace it
            self._discard(helper)
            raise Unavailable("Documents cannot be read right now; try again shortly.") from exc
        self._idle.put(helper)
        return _explain(verdict, value, self.limits), handout

    def _take(self) -> _Helper:
        try:
            return self._idle.get_nowait()
        except queue.Empty:
            pass
        with self._lock:  # the semaphore bounds how many exist: one per slot
            if self._closed:
                raise Unavailable("The server is shutting down.")
            try:
                helper = _Helper()
            except OSError as exc:
                raise Unavailable("Documents cannot be read right now; try again.") from exc
            self._all.append(helper)
            return helper

    def _discard(self, helper: _Helper) -> None:
        helper.close()
        with self._lock:
            if helper in self._all:
                self._all.remove(helper)

    def close(self) -> None:
        with self._lock:
            self._closed = True
            helpers, self._all = self._all, []
        for helper in helpers:
            helper.close()
