"""The whole document a reviewer reads, when it is plain text: evidence spans are positions in
it. Only uploads declared as text (by extension or content type) are shown: decoding them is
one linear pass, while PDFs and notebooks are read only in the grading processes (bounded,
forked), never in a page request."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import PurePath
from typing import Any

from app.db.models import Submission
from app.web.evidence import SKIP_KINDS, quotes
from graders.documents.formats import decode_text
from graders.documents.model import InvalidDocument

TEXT_SUFFIXES = frozenset({".txt", ".text", ".md", ".markdown", ".tex", ".latex", ".py"})
JSON_TYPES = frozenset({"application/json", "text/json"})
MAX_SHOWN = 200_000  # characters of a document a page shows


def _declared_text(filename: str | None, content_type: str | None) -> bool:
    if filename and PurePath(filename).suffix:
        return PurePath(filename).suffix.lower() in TEXT_SUFFIXES
    base = (content_type or "").split(";", 1)[0].strip().lower()
    return base.startswith("text/") and base not in JSON_TYPES


def document_text(submission: Submission) -> str | None:
    """The document's text (at most MAX_SHOWN characters), or None when it is not plain text."""
    if not _declared_text(submission.filename, submission.content_type):
        return None
    try:
        text = decode_text(submission.raw)
    except InvalidDocument:
        return None
    return text[:MAX_SHOWN]


def document_spans(text: str, evidence: Iterable[Any]) -> list[tuple[int, int, str]]:
    """Evidence spans in the document whose text is really there, whitespace aside (a stale
    or foreign span marks nothing)."""
    found: list[tuple[int, int, str]] = []
    for item in evidence:
        if not isinstance(item, dict) or item.get("kind") in SKIP_KINDS:
            continue
        start, end, quoted = item.get("start"), item.get("end"), str(item.get("text") or "")
        if not (isinstance(start, int) and isinstance(end, int)) or not 0 <= start < end:
            continue
        if end <= len(text) and quotes(text[start:end], quoted):
            label = f"{item.get('kind')}: {item.get('note') or ''}".strip(": ")
            found.append((start, end, label))
    return found
