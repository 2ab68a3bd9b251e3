"""Reading submissions: format detection, text extraction and answer location."""

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
