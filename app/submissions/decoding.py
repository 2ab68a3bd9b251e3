"""Checking that a PDF or notebook upload can be read, outside the API process.

PDF text extraction and notebook validation are the expensive, library-heavy parses of student
bytes (a crafted 8 KB PDF took 33 s inside the server, others raised unexpected errors). Each
such upload is read by a short-lived child process forked from the clean fork server, with a
memory cap, a page cap and a wall-clock deadline after which it is killed. At most
`concurrency` children run at once; requests beyond a short queue are turned away (503).
"""

from __future__ import annotations

import asyncio
import multiprocessing
import multiprocessing.connection
import resource
from dataclasses import dataclass

from starlette.concurrency import run_in_threadpool

from app.errors import Unavailable, UnreadableUpload
from graders.documents.formats import decode_document
from graders.documents.model import InvalidDocument

_HEAVY_EXTENSIONS = (".pdf", ".ipynb")
_HEAVY_TYPES = frozenset({"application/pdf", "application/x-ipynb+json"})
# Requests waiting for a child, per child slot, before new ones are turned away.
QUEUE_PER_SLOT = 4


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


def _child(
    conn: multiprocessing.connection.Connection,
    raw: bytes,
    filename: str | None,
    content_type: str | None,
    limits: DecodeLimits,
) -> None:
    # Address space: what the fork server already mapped, plus the budget for this document.
    with open("/proc/self/statm") as statm:
        mapped = int(statm.read().split()[0]) * resource.getpagesize()
    resource.setrlimit(resource.RLIMIT_AS, (mapped + limits.memory_bytes,) * 2)
    cpu = int(limits.seconds) + 1
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    try:
        document = decode_document(raw, filename, content_type, max_pages=limits.max_pages)
    except InvalidDocument as exc:
        conn.send(("invalid", str(exc)))
    except MemoryError:
        conn.send(("invalid", "the document needs too much memory to read"))
    except RecursionError:
        conn.send(("invalid", "the document is nested too deeply to read"))
    except Exception as exc:  # a parser library's own error on a malformed file
        conn.send(("invalid", f"not a readable document ({type(exc).__name__})"))
    else:
        conn.send(("ok", document.format))
    finally:
        conn.close()


def _decode_in_child(
    raw: bytes, filename: str | None, content_type: str | None, limits: DecodeLimits
) -> str:
    context = multiprocessing.get_context("forkserver")
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(
        target=_child, args=(sender, raw, filename, content_type, limits), daemon=True
    )
    process.start()
    sender.close()
    try:
        if not receiver.poll(limits.seconds):
            raise UnreadableUpload(
                f"The document could not be read within {limits.seconds:g} s; upload a "
                "smaller or simpler file (or a text transcript)."
            )
        try:
            verdict, value = receiver.recv()
        except EOFError:  # killed by its memory or CPU limit
            raise UnreadableUpload(
                "The document needs more memory or time to read than is allowed; upload a "
                "smaller or simpler file (or a text transcript)."
            ) from None
    finally:
        receiver.close()
        if process.is_alive():
            process.kill()
        process.join(5)
        process.close()
    if verdict != "ok":
        raise UnreadableUpload(str(value))
    return str(value)


class DocumentReader:
    """Bounded concurrency for child decodes; the event loop never waits on a parse."""

    def __init__(self, limits: DecodeLimits, concurrency: int) -> None:
        self.limits = limits
        self._slots = asyncio.Semaphore(concurrency)
        self._max_waiting = concurrency * QUEUE_PER_SLOT
        self._waiting = 0

    async def document_format(
        self, raw: bytes, filename: str | None, content_type: str | None
    ) -> str:
        if self._waiting >= self._max_waiting:
            raise Unavailable(
                "Too many documents are being read right now; try again in a minute.",
                retry_after=30,
            )
        self._waiting += 1
        try:
            async with self._slots:
                return await run_in_threadpool(
                    _decode_in_child, raw, filename, content_type, self.limits
                )
        finally:
            self._waiting -= 1
