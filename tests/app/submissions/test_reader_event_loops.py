"""The document readers under the event loops the API runs on: the standard library's (the test
client) and uvloop (what `gradeformer serve` runs through uvicorn). A helper that answered a small
document on the loop must still take a big one from a worker thread: uvloop leaves a descriptor
it watched non-blocking, and a document bigger than the pipe's buffer then failed with a 503."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
import uvloop

from app.submissions.decoding import DecodeLimits, DocumentReader

MIB = 1024 * 1024
SMALL = b"B1: 64\n"
BIG = b"B1: 64\n" * 300_000  # 2 MiB: a worker-thread read, many times a pipe's buffer

LOOPS: dict[str, Callable[[], asyncio.AbstractEventLoop]] = {
    "asyncio": asyncio.new_event_loop, "uvloop": uvloop.new_event_loop}


@pytest.mark.parametrize("loop", list(LOOPS))
def test_big_documents_after_small_ones_are_read_by_the_same_helpers(loop: str) -> None:
    reader = DocumentReader(DecodeLimits(seconds=10, max_pages=10, memory_bytes=256 * MIB), 1)

    async def scenario() -> list[str]:
        formats = []
        for raw in [SMALL] * 4 + [BIG] * 4 + [SMALL, BIG]:  # every helper answers both ways
            fmt, _ = await reader.read_document(raw, "a.txt", "text/plain", owner="alice")
            formats.append(fmt)
        return formats

    runner = asyncio.Runner(loop_factory=LOOPS[loop])
    try:
        with runner:
            formats = runner.run(scenario())
    finally:
        reader.close()
    assert formats == ["text"] * 10
