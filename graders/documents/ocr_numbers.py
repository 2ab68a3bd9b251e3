"""A bare number opening a paragraph before prose: how an OCR transcript of a handwritten page
numbers its answers (`7 during training each unit ...`, `8 mixed precision (bf16)`).

Such a number is only a candidate: `paths.resolve_paths` keeps it where it continues the
document's numbering (the next question, or the one after a question left out), so a number in
an answer's text (`3 class labels are 0/1` inside a paragraph, `5 heads` after question 1) stays
text. A number that counts what follows (`2 heads attend ...`, `4 times faster`) is never one.
"""

from __future__ import annotations

import re

_BARE_PROSE = re.compile(r"(\d{1,2})[ \t]{1,3}(?=[A-Za-z]{2})")
# a plural right after the number: a count of it
_COUNTED = re.compile(r"[A-Za-z]{1,30}(?<![su])s\b")


def _opens_paragraph(text: str, line_start: int) -> bool:
    """The line is the document's first or follows a blank line."""
    if line_start < 2:
        return True
    previous = text[max(0, line_start - 200):line_start - 1].rsplit("\n", 1)[-1]
    return not previous.strip()


def prose_number(text: str, line_start: int) -> tuple[int, int] | None:
    """(where the answer starts, the number) when the line at `line_start` opens a paragraph
    with a bare number before a word that it does not count."""
    if not _opens_paragraph(text, line_start):
        return None
    m = _BARE_PROSE.match(text, line_start)
    if m is None or _COUNTED.match(text, m.end()):
        return None
    return m.end(), int(m.group(1))
