"""OCR's l for 1 and O for 0 in a formula transcribed from handwriting: `(l - alpha^(gamma+l))`,
`(l - O.8^5)/O.2`.

Only in a transcript (a plain-text upload, where OCR transcripts arrive), and only where the
expected expression names no symbol l (or O): an l standing alone between signs, brackets or
the ends of the text is a 1, and an O standing alone before a decimal point's digits is a 0. A
typed document keeps its letters. One linear scan of a bounded text.
"""

from __future__ import annotations

import re

MAX_TEXT = 4000
_NAMED = re.compile(r"(?<![A-Za-z\\_])(?P<name>[lO])(?![A-Za-z])")
_LONE_L = re.compile(r"(?<![A-Za-z0-9_\\.])l(?![A-Za-z0-9_])")
_LONE_O = re.compile(r"(?<![A-Za-z0-9_\\.])O(?=\.\d)")
_BEFORE = set("+-−*/^=([{")
_AFTER = set("+-−*/^=)]}")


def names(expected: str) -> set[str]:
    """Which of l and O the expected expression names as a symbol."""
    return {m.group("name") for m in _NAMED.finditer(expected[:MAX_TEXT])}


def read_as_written(text: str, named: set[str]) -> str:
    """The text with the transcript's l and O read as the digits, those the expected
    expression does not name."""
    head, tail = text[:MAX_TEXT], text[MAX_TEXT:]

    def one(match: re.Match[str]) -> str:
        before = head[:match.start()].rstrip()[-1:]
        after = head[match.end():].lstrip()[:1]
        lone = before in _BEFORE | {""} and after in _AFTER | {"", "\n"}
        return "1" if lone else "l"

    if "l" not in named:
        head = _LONE_L.sub(one, head)
    if "O" not in named:
        head = _LONE_O.sub("0", head)
    return head + tail
