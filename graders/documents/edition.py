"""A submission's handout edition, declared: with the upload, or inside the document itself.

Declared, never inferred: an upload names its edition (the API's `handout` field, `gradeformer
grade --handout`), a JSON submission in its top-level `handout` key, a notebook in its
metadata (`metadata.gradeformer.handout`, set in the handout's own notebook, so every copy a
student makes carries it). Numbers in the text never say which edition a student had.

A declared value is one of the rubric's `handouts`, written as the rubric writes it (a value
that differs only in case is that edition). The upload paths refuse any other
(`check_declared`); a stored declaration the current rubric no longer lists (the rubric changed
since) grades as undeclared, with a note for staff (`resolve_declared`).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any

from graders.documents.model import InvalidDocument, LocatedAnswer
from graders.rubric_model import Rubric

MAX_CHARS = 40
# The notebook metadata namespace this service reads (Jupyter asks tools to keep to their own).
NOTEBOOK_NAMESPACE = "gradeformer"
_SPACES = re.compile(r"\s+")


class EditionError(ValueError):
    """A declared edition this rubric cannot grade; `allowed`: the editions it grades."""

    def __init__(self, message: str, allowed: Sequence[str]) -> None:
        super().__init__(message)
        self.allowed = tuple(allowed)


def clean_edition(value: object, where: str) -> str:
    """The declared value as text: a string (or a whole number: `2025`), whitespace collapsed,
    1 to MAX_CHARS printable characters; else ValueError naming `where` it was written."""
    if isinstance(value, int) and not isinstance(value, bool):
        value = str(value)
    if not isinstance(value, str):
        raise ValueError(f"{where} must be a string naming the handout edition")
    text = _SPACES.sub(" ", unicodedata.normalize("NFC", value[:4 * MAX_CHARS])).strip()
    if not text:
        raise ValueError(f"{where} is empty")
    if len(value) > 4 * MAX_CHARS or len(text) > MAX_CHARS:
        raise ValueError(f"{where} is longer than {MAX_CHARS} characters")
    if not text.isprintable():
        raise ValueError(f"{where} holds control or invisible characters")
    return text


def document_edition(fmt: str, data: Any) -> str | None:
    """The edition a JSON submission (`handout`) or a notebook (`metadata.gradeformer.handout`)
    declares, cleaned; InvalidDocument when the value is not one."""
    try:
        if fmt == "json" and isinstance(data, Mapping) and data.get("handout") is not None:
            return clean_edition(data["handout"], '"handout"')
        metadata = getattr(data, "metadata", None) if fmt == "notebook" else None
        own = metadata.get(NOTEBOOK_NAMESPACE) if isinstance(metadata, Mapping) else None
        if isinstance(own, Mapping) and own.get("handout") is not None:
            return clean_edition(own["handout"], f"the notebook's metadata "
                                 f"{NOTEBOOK_NAMESPACE}.handout")
    except ValueError as exc:
        raise InvalidDocument(str(exc)) from exc
    return None


def match_edition(handouts: Sequence[str], value: str) -> str | None:
    """The rubric's spelling of `value`: the same text, else the same text in another case."""
    if value in handouts:
        return value
    folded = value.casefold()
    return next((h for h in handouts if h.casefold() == folded), None)


def _editions(handouts: Sequence[str]) -> str:
    if not handouts:
        return "this assignment has no handout editions"
    return "its editions: " + ", ".join(handouts)


def check_declared(
    handouts: Sequence[str], given: str | None, in_document: str | None
) -> str | None:
    """The edition an upload declares, as the rubric writes it; EditionError when the upload
    names one the rubric does not grade (or the rubric has no editions), when the document
    names one the rubric does not list, or when the two disagree. A document's own declaration
    is not an error when the rubric has no editions (a notebook template may carry it)."""
    edition = None
    if given is not None:
        edition = match_edition(handouts, given)
        if edition is None:
            raise EditionError(f"handout {given!r} is not an edition of this assignment "
                               f"({_editions(handouts)})", handouts)
    if in_document is not None and handouts:
        written = match_edition(handouts, in_document)
        if written is None:
            raise EditionError(f"the document declares handout {in_document!r}, which is not "
                               f"an edition of this assignment ({_editions(handouts)})",
                               handouts)
        if edition is not None and written != edition:
            raise EditionError(f"the upload declares handout {edition!r} but the document "
                               f"declares {written!r}", handouts)
        edition = written
    return edition


def resolve_declared(
    rubric: Rubric, given: str | None, in_document: str | None
) -> tuple[str | None, str]:
    """The declared edition grading uses, and a note for staff: a declaration the rubric does
    not list grades as undeclared (the rubric changed after the upload). Two declarations
    that disagree are InvalidDocument (the upload paths refuse them before)."""
    declared = [(v, match_edition(rubric.handouts, v)) for v in (given, in_document)
                if v is not None]
    found = list(dict.fromkeys(m for _, m in declared if m is not None))
    if len(found) > 1:
        raise InvalidDocument(f"the upload declares handout {found[0]!r} but the document "
                              f"declares {found[1]!r}")
    unknown = [v for v, m in declared if m is None]
    if found or not unknown:
        return (found[0] if found else None), ""
    return None, (f"handout {unknown[0]!r} was declared, which this rubric does not grade "
                  f"({_editions(rubric.handouts)}): graded as if no edition were declared")


def set_aside(
    rubric: Rubric, edition: str, answers: dict[str, LocatedAnswer], missing: dict[str, str]
) -> None:
    """The answers to questions the declared edition does not ask leave the graded answers,
    whatever the document holds there (graders.engine counts those questions for nothing)."""
    for question in rubric.questions:
        if rubric.asks(question, edition):
            continue
        found = answers.pop(question.id, None)
        if found is not None:
            where = f" under {found.label!r}" if found.label else ""
            missing[question.id] = f"The document has an answer to {question.id}{where}; it is " \
                                   "not graded."
        else:
            missing.setdefault(question.id, f"No answer to {question.id} was found.")


__all__ = [
    "MAX_CHARS", "NOTEBOOK_NAMESPACE", "EditionError", "check_declared", "clean_edition",
    "document_edition", "match_edition", "resolve_declared", "set_aside",
]
