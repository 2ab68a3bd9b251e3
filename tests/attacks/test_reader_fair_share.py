"""Fair share of the document readers under a flood of disguised documents: one student's PDFs
uploaded as text (read by a light helper first, then handed to a heavy one) and their big text
files never make another student's document wait for more than one of theirs."""

from __future__ import annotations

import asyncio
from typing import Literal

from app.submissions.decoding import DecodeLimits, DocumentReader
from tests.app.pdfs import text_pdf

MIB = 1024 * 1024


def test_a_flood_of_disguised_pdfs_and_big_texts_delays_another_student_by_one_read() -> None:
    reader = DocumentReader(DecodeLimits(seconds=5, max_pages=10, memory_bytes=256 * MIB), 2)
    pdf = b" " * 2048 + text_pdf(["B1: 64"] * 3)  # past the server's 1 KiB look: read light first
    big = b"B1: 64\n" * 150_000  # ~1 MiB of text: a worker-thread read
    started: list[str] = []
    decode = reader._decode

    def recording(kind: Literal["light", "heavy"], raw: bytes, filename: str | None,
                  content_type: str | None) -> tuple[str, str, str | None]:
        started.append((filename or "").split(".")[0])
        return decode(kind, raw, filename, content_type)

    reader._decode = recording  # type: ignore[method-assign]

    async def read(owner: str, name: str, raw: bytes) -> str:
        fmt, _ = await reader.read_document(raw, f"{name}.txt", "text/plain", owner=owner)
        return fmt

    async def scenario() -> tuple[list[str], str]:
        flood = [asyncio.create_task(read("flood", f"flood{i}", pdf if i % 2 else big))
                 for i in range(8)]
        await asyncio.sleep(0)  # the flood is queued first
        other = await read("other", "other", big)
        return list(await asyncio.gather(*flood)), other

    try:
        formats, other = asyncio.run(scenario())
    finally:
        reader.close()
    assert other == "text"
    assert formats.count("pdf") == 4  # each disguised PDF was read as a PDF, in a child
    # the flood reads one document at a time (a disguised PDF's light look and heavy read are
    # one turn): before the other student's read starts, only the flood's first has
    assert set(started[:started.index("other")]) <= {"flood0"}, started
