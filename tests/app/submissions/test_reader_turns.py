"""Who is told what when a document waits for a reader: a student whose own earlier documents
hold their turn is told 429 (their own rate, with when to come back), not 503; every student's
documents filling the readers is the server's overload, 503. And a read abandoned mid-way (its
request cancelled, as at shutdown) gives its helper up instead of leaving it busy for good."""

from __future__ import annotations

import asyncio
import os
import signal
import time

import pytest

from app.errors import DomainError
from app.submissions import decoding
from app.submissions.decoding import DecodeLimits, DocumentReader

MIB = 1024 * 1024
LIMITS = DecodeLimits(seconds=5, max_pages=10, memory_bytes=256 * MIB)
READ_SECONDS = 1.0  # how long each slow read below takes


def _slow_reader(concurrency: int) -> DocumentReader:
    """A reader whose PDFs take READ_SECONDS each on their worker thread (no helper started)."""
    reader = DocumentReader(LIMITS, concurrency)

    def slow(kind: str, raw: bytes, filename: str | None,
             content_type: str | None) -> tuple[str, str, str | None]:
        time.sleep(READ_SECONDS)
        return "ok", "text", None

    reader._decode = slow  # type: ignore[method-assign]
    return reader


async def _outcome(reader: DocumentReader, owner: str, delay: float = 0.0) -> int:
    await asyncio.sleep(delay)
    try:
        await reader.read_document(b"%PDF-1.4", "a.pdf", "application/pdf", owner=owner)
    except DomainError as exc:
        if exc.status in (429, 503):
            assert int(exc.extra["retry_after"]) > 0
        return exc.status
    return 200


def test_a_students_own_queue_is_their_429_and_a_full_server_is_503(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(decoding, "QUEUE_SECONDS", READ_SECONDS / 2)
    reader = _slow_reader(concurrency=1)

    async def scenario() -> list[int]:
        # alice's second PDF waits behind her first (her turn); bob's behind hers (the reader).
        return list(await asyncio.gather(_outcome(reader, "alice"), _outcome(reader, "alice"),
                                         _outcome(reader, "bob", delay=0.1)))

    assert asyncio.run(scenario()) == [200, 429, 503]


def test_the_wait_for_a_reader_starts_when_the_students_turn_comes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """alice's second PDF waits a whole read for her turn, then another for the reader (bob's
    took it meanwhile): her own queue does not use up what the server's may take."""
    monkeypatch.setattr(decoding, "QUEUE_SECONDS", READ_SECONDS * 1.5)
    reader = _slow_reader(concurrency=1)

    async def scenario() -> list[int]:
        return list(await asyncio.gather(_outcome(reader, "alice"), _outcome(reader, "alice"),
                                         _outcome(reader, "bob", delay=READ_SECONDS / 2)))

    assert asyncio.run(scenario()) == [200, 200, 200]


def _pid(pid: int | None) -> int:
    assert pid, "a started helper has a process id"
    return pid


def test_a_small_read_cancelled_midway_gives_its_helper_up() -> None:
    reader = DocumentReader(LIMITS, 1)
    pool = reader._pools["light"]

    async def scenario() -> tuple[str, str]:
        assert await asyncio.to_thread(reader.start, 60)
        deadline = time.monotonic() + 60
        while pool._idle.qsize() < 2 and time.monotonic() < deadline:  # both helpers warm
            await asyncio.sleep(0.05)
        helpers = list(pool._all)
        for helper in helpers:  # neither answers: the read is still going when it is cancelled
            os.kill(_pid(helper.process.pid), signal.SIGSTOP)
        read = asyncio.create_task(reader.read_document(b"B1: 64\n", "a.txt", "text/plain",
                                                        owner="alice"))
        await asyncio.sleep(0.3)
        read.cancel()
        with pytest.raises(asyncio.CancelledError):
            await read
        abandoned = [helper for helper in helpers if helper not in pool._all]
        assert len(abandoned) == 1, "the cancelled read's helper is still counted as the pool's"
        until = time.monotonic() + 10
        while abandoned[0].process.is_alive() and time.monotonic() < until:
            await asyncio.sleep(0.05)
        assert not abandoned[0].process.is_alive(), "the cancelled read's helper still runs"
        for helper in pool._all:
            os.kill(_pid(helper.process.pid), signal.SIGCONT)
        # The helper left, and the one that replaces it, read the next documents.
        return (await reader.read_document(b"B1: 64\n", "a.txt", "text/plain", owner="alice"))[0], \
            (await reader.read_document(b"B1: 64\n", "b.txt", "text/plain", owner="bob"))[0]

    try:
        assert asyncio.run(scenario()) == ("text", "text")
    finally:
        reader.close()


def test_a_small_read_cancelled_while_its_helper_starts_leaves_the_helper_to_the_pool() -> None:
    reader = DocumentReader(LIMITS, 1)  # not started: the first read starts a helper
    pool = reader._pools["light"]

    async def scenario() -> None:
        read = asyncio.create_task(reader.read_document(b"B1: 64\n", "a.txt", "text/plain",
                                                        owner="alice"))
        for _ in range(3):  # until the read waits for its helper to start
            await asyncio.sleep(0)
        read.cancel()
        with pytest.raises(asyncio.CancelledError):
            await read
        deadline = time.monotonic() + 20
        while pool._idle.qsize() < 1 and time.monotonic() < deadline:
            await asyncio.sleep(0.05)
        assert pool._idle.qsize() == 1 and len(pool._all) == 1, "the started helper was lost"

    try:
        asyncio.run(scenario())
    finally:
        reader.close()
