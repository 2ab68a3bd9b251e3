"""Reading submissions: format detection, text extraction and answer location."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graders.lazy import load

if TYPE_CHECKING:
    from graders.documents.model import (
        DocumentFormat,
        InvalidDocument,
        LocatedAnswer,
        LocateMethod,
        LocationStrength,
        NeedsReader,
        ParsedSubmission,
    )
    from graders.documents.submission import (
        answers_as_json,
        read_submission,
        sniff_document,
        sniff_format,
    )

# Imported on first use (graders.lazy): a module that needs only the data model (the grading
# context, the cache keys, the rubric loader) imports graders.documents.model without the
# readers and the answer locator.
_WHERE = {
    **dict.fromkeys(("DocumentFormat", "InvalidDocument", "LocatedAnswer", "LocateMethod",
                     "LocationStrength", "NeedsReader", "ParsedSubmission"),
                    "graders.documents.model"),
    **dict.fromkeys(("answers_as_json", "read_submission", "sniff_document", "sniff_format"),
                    "graders.documents.submission"),
}

__all__ = [
    "DocumentFormat",
    "InvalidDocument",
    "LocateMethod",
    "LocatedAnswer",
    "LocationStrength",
    "NeedsReader",
    "ParsedSubmission",
    "answers_as_json",
    "read_submission",
    "sniff_document",
    "sniff_format",
]


def __getattr__(name: str) -> Any:
    return load(globals(), _WHERE, name)
