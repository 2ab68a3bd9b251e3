"""Reading an upload from the request: raw body or multipart `file`, never past the size cap."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from dataclasses import dataclass

from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request

from app.errors import InvalidInput, PayloadTooLarge, UnsupportedEncoding

# Multipart framing (boundaries, part headers, small fields) on top of the file itself.
MULTIPART_SLACK = 64 * 1024


@dataclass(frozen=True)
class Upload:
    raw: bytes
    filename: str | None
    content_type: str | None
    student: str | None = None
    handout: str | None = None  # the handout edition the uploader declares, as sent
    # A web page form's CSRF token (multipart field `csrf`); the API ignores it.
    csrf: str | None = None


def _too_large(limit: int) -> PayloadTooLarge:
    return PayloadTooLarge(
        f"The upload is larger than the limit of {limit} bytes.", limit_bytes=limit
    )


async def _read_capped(request: Request, cap: int, limit: int) -> bytes:
    declared = request.headers.get("content-length")
    if declared is not None and declared.isdigit() and int(declared) > cap:
        raise _too_large(limit)
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > cap:
            raise _too_large(limit)
        chunks.append(chunk)
    return b"".join(chunks)


async def _replay(body: bytes) -> AsyncGenerator[bytes, None]:
    yield body


def _media_type(header: str | None) -> str:
    return (header or "").split(";", 1)[0].strip().lower()


async def read_upload(request: Request, limit: int) -> Upload:
    # A compressed body would be stored and graded as its compressed bytes: refused before it
    # is read (nothing here decompresses a student's bytes).
    encodings = [part.strip().lower() for header in request.headers.getlist("content-encoding")
                 for part in header.split(",")]
    if any(e not in ("", "identity") for e in encodings):
        raise UnsupportedEncoding(
            "Send the document itself: a compressed body (Content-Encoding) is not accepted.")
    content_type = request.headers.get("content-type")
    if _media_type(content_type) != "multipart/form-data":
        raw = await _read_capped(request, limit, limit)
        return Upload(raw, None, _media_type(content_type) or None)
    body = await _read_capped(request, limit + MULTIPART_SLACK, limit)
    parser = MultiPartParser(request.headers, _replay(body), max_files=1, max_fields=10)
    try:
        form = await parser.parse()
    except MultiPartException as exc:
        raise InvalidInput(f"Malformed multipart upload: {exc.message}") from exc
    try:
        part = form.get("file")
        if not isinstance(part, UploadFile):
            raise InvalidInput(
                "A multipart upload needs its document in a file field named `file`."
            )
        raw = await part.read()
        if len(raw) > limit:
            raise _too_large(limit)
        field = form.get("student")
        student = field.strip() if isinstance(field, str) else ""
        edition = form.get("handout")
        csrf = form.get("csrf")
        return Upload(raw, part.filename, _media_type(part.content_type) or None, student or None,
                      edition if isinstance(edition, str) else None,
                      csrf if isinstance(csrf, str) else None)
    finally:
        await form.close()
