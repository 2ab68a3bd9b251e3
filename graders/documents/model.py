"""A submission after reading: its text and one located answer per question."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

LocateMethod = Literal["json", "label", "content", "order", "whole"]
# How an answer was found: "strong" by its own label, cell or key; "weak" by heading order, a
# neighbouring part's block, code under a prose question, or its content alone. A weak answer is
# graded (the machine's points are kept as a suggestion) and sent to review with `weak_reason`.
LocationStrength = Literal["strong", "weak"]
DocumentFormat = Literal["json", "text", "markdown", "latex", "python", "notebook", "pdf"]


class InvalidDocument(Exception):
    """The upload cannot be read as a submission (empty, binary, malformed, too large)."""


class NeedsReader(Exception):
    """Reading this upload means a heavy parse (a PDF, a notebook's validation), which a caller
    that asked for light reading only must do in a bounded child process instead."""

    def __init__(self, document_format: str) -> None:
        super().__init__(f"a {document_format} is read in a child process")
        self.format = document_format


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
    strength: LocationStrength = "strong"
    weak_reason: str = ""  # staff-readable: "located by heading order only"
    # Set on every answer of a document where most questions were not found ("does this answer
    # this assignment? 1 of 4 questions found"): all its items go to review.
    doubt: str = ""


@dataclass(frozen=True)
class ParsedSubmission:
    text: str
    format: DocumentFormat
    answers: Mapping[str, LocatedAnswer]
    student_id: str | None = None
    # Why a question has no answer ("no label or content matched ...").
    missing: Mapping[str, str] = field(default_factory=dict)
    # Of the `missing` questions, those whose absence is not sure: unclaimed text mentions their
    # cues ("no labelled answer to Q2; lines 3-36 mention learnable, ...: does this passage
    # answer Q2?"). Their items go to review, suggested at 0, never `missing` at full confidence.
    unsure: Mapping[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    # "does this answer this assignment? N of M questions found", when most were not found
    doubt: str = ""
    # The handout edition declared with the upload or in the document (the rubric's spelling;
    # graders.documents.edition); None: not declared. Grading counts only what it asks.
    handout: str | None = None
