"""A submission after reading: its text and one located answer per question."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

LocateMethod = Literal["json", "label", "content", "order", "whole"]
DocumentFormat = Literal["json", "text", "markdown", "latex", "python", "notebook", "pdf"]


class InvalidDocument(Exception):
    """The upload cannot be read as a submission (empty, binary, malformed, too large)."""


@dataclass(frozen=True)
class LocatedAnswer:
    question_id: str
    text: str
    # Span of `text` in ParsedSubmission.text, when it came from a document.
    start: int | None = None
    end: int | None = None
    confidence: float = 1.0
    method: LocateMethod = "label"
    label: str | None = None
    note: str = ""
    # Per-item answers when the upload named items (JSON `{"b1.d_head": "64"}`): item id -> text.
    parts: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ParsedSubmission:
    text: str
    format: DocumentFormat
    answers: Mapping[str, LocatedAnswer]
    student_id: str | None = None
    # Why a question has no answer ("no label or content matched ...").
    missing: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
