"""Strings that came from student bytes, made safe to store and to print.

Grader feedback, error messages and located answers quote the student's document. Such a string
may hold lone surrogates (UnicodeEncodeError when a terminal or driver encodes it), NUL (which
PostgreSQL refuses in text and JSON), terminal escapes (ANSI colour, cursor moves, title
changes) or bidirectional overrides that make a line read differently from what it holds. Every
such string passes through `clean` on its way into the database and onto a terminal.
"""

from __future__ import annotations

import re
from typing import Any

# Text written to one database column or terminal cell: generous for feedback, bounded anyway.
DEFAULT_LIMIT = 20_000
ELLIPSIS = "…"

# C0 controls except tab and newline, DEL, C1 controls (0x9b is a one-byte CSI), and the
# bidirectional embedding/override/isolate marks, and lone surrogates (from surrogateescape or a
# JSON "\\ud800"), which no UTF-8 encoder accepts. A character class: linear time.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
# Characters that show as nothing: every format character (Unicode category Cf: zero-width
# space, non-joiner and joiner, direction marks, the Arabic letter mark, word joiner and
# invisible operators, the byte-order mark, soft hyphen, interlinear annotation marks, the
# Unicode tag characters, which can carry a hidden ASCII message, and the rest of the 14.0 list),
# the variation selectors (256 of them: a byte each, smuggled after any visible character), the
# combining grapheme joiner, and the Hangul, Khmer and Mongolian fillers that render blank. Text a
# staff member reads must hold what it shows: these are removed.
_INVISIBLE = re.compile(
    "[\u00ad\u034f\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u115f\u1160"
    "\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2060-\u2065\u206a-\u206f\u3164\ufe00-\ufe0f"
    "\ufeff\uffa0\ufff9-\ufffb\U000110bd\U000110cd\U00013430-\U0001343f"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e007f\U000e0100-\U000e01ef]"
)
# A spreadsheet runs a cell that starts with one of these as a formula (=HYPERLINK(...) leaks
# data when clicked; DDE payloads run commands). Tab and CR start formulas in some too, and some
# take the full-width signs an input method types, and every other look-alike that an
# autocorrecting or normalising import (NFKC) turns into a sign: the minus sign U+2212 and each
# character whose compatibility form is `=`, `+`, `-` or `@` (the small, raised and lowered
# signs, the Hebrew alternative plus). tests/attacks/test_formula_compatibility.py derives that
# class from the Unicode tables (a list made by hand had missed U+207C, U+208C, U+FB29, U+FE6B).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\u2212",
                  "\u207a", "\u207b", "\u207c", "\u208a", "\u208b", "\u208c", "\ufb29",
                  "\ufe62", "\ufe63", "\ufe66", "\ufe6b", "\uff0b", "\uff0d", "\uff1d", "\uff20")
# A number as a spreadsheet reads one: ASCII digits only (other scripts' digits are text there).
_NUMBER = re.compile(r"[+-]?[0-9]{1,30}(\.[0-9]{1,30})?")


def clean(text: str, limit: int = DEFAULT_LIMIT) -> str:
    """Valid UTF-8, no control characters but tab and newline, nothing invisible, at most
    `limit` characters."""
    if len(text) > limit:
        text = text[: limit - 1] + ELLIPSIS
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return _INVISIBLE.sub("", _UNSAFE.sub("\ufffd", text))


def csv_cell(value: object, limit: int = 1000) -> str:
    """A CSV cell a spreadsheet shows as text: cleaned, and formula-like text gets a leading
    apostrophe (the OWASP advice); numbers stay numbers."""
    text = clean("" if value is None else str(value), limit)
    # An import that trims blanks trims every kind (str.lstrip: each Unicode space and line
    # or paragraph separator, U+2003, U+2028, U+1680 as well as the ASCII ones).
    if text.lstrip().startswith(_FORMULA_START) and not _NUMBER.fullmatch(text):
        return "'" + text
    return text


def clean_optional(text: str | None, limit: int = DEFAULT_LIMIT) -> str | None:
    return None if text is None else clean(text, limit)


def clean_json(value: Any, limit: int = DEFAULT_LIMIT) -> Any:
    """Every string in a JSON-like structure (keys too) cleaned; other values unchanged."""
    if isinstance(value, str):
        return clean(value, limit)
    if isinstance(value, dict):
        return {clean(str(k), 200): clean_json(v, limit) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_json(v, limit) for v in value]
    return value
