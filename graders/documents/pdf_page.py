"""A PDF page's text as its page shows it: text drawn outside the page's visible box is left out.

A viewer shows only what lies within a page's crop box (its media box unless set); text placed
thousands of points beyond it is in the file's text layer, which pypdf extracts whole, yet no TA
reading the PDF ever sees it, and a hostile student hides the expected values there beside a
visible answer. Each piece of text pypdf extracts is kept only when where it starts lies on the
page (with a margin: a glyph may start just outside and still show). The pieces are pypdf's own
output, joined as `extract_text` joins them. Text that is on the page but hidden otherwise
(invisible rendering, which OCR layers of scans use; white; tiny) is still read.
"""

from __future__ import annotations

from typing import Any

MARGIN = 0.1  # of the box's width or height, beyond each edge, still counted as on the page


def _bounds(page: Any) -> tuple[float, float, float, float]:
    box = page.cropbox
    left, bottom, right, top = (float(v) for v in (box.left, box.bottom, box.right, box.top))
    left, right = min(left, right), max(left, right)
    bottom, top = min(bottom, top), max(bottom, top)
    dx, dy = (right - left) * MARGIN + 36, (top - bottom) * MARGIN + 36
    return left - dx, bottom - dy, right + dx, top + dy


def visible_text(page: Any) -> str:
    """The page's extracted text without the pieces that start off the page."""
    left, bottom, right, top = _bounds(page)
    parts: list[str] = []

    def visit(text: str, cm: Any, tm: Any, _font: Any, _size: Any) -> None:
        if not text.strip():  # pypdf's own line breaks and spaces: layout, kept
            parts.append(text)
            return
        try:
            x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        except (TypeError, IndexError):  # no position to judge by: kept
            parts.append(text)
            return
        if left <= x <= right and bottom <= y <= top:
            parts.append(text)

    page.extract_text(visitor_text=visit)
    return "".join(parts)
