"""Inside the document reader's helper processes (app.submissions.decoding is the server's side):
read one upload within its limits and say what it is, or why it cannot be read, as data."""

from __future__ import annotations

import json
import logging
import multiprocessing.connection
import os
import resource
import select
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass
from types import FrameType
from typing import Literal

from graders.documents.formats import DecodedDocument, decode_document
from graders.documents.model import InvalidDocument, NeedsReader

MESSAGE_CHARS = 500
# A light helper whose resident memory grew this much past its start (what reading left behind
# in the allocator) is replaced after its answer, like one that ran out of memory.
LIGHT_GROWTH_BYTES = 128 * 1024 * 1024

Kind = Literal["light", "heavy"]
READY = "ready"


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


def helper_main(conn: multiprocessing.connection.Connection, kind: Kind) -> None:
    # The PDF library logs every repair it attempts on a malformed file: noise, not news.
    logging.getLogger("pypdf").setLevel(logging.CRITICAL)
    signal.signal(signal.SIGALRM, _expire)
    _, baseline = _mapped_bytes()
    conn.send(READY)  # imported and listening: the server sends documents only from now on
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
