"""A PDF page's text as its page shows it: text drawn outside the page's visible box is left out.

A viewer shows only what lies within a page's crop box (its media box unless set); text placed
thousands of points beyond it is in the file's text layer, which pypdf extracts whole, yet no TA
reading the PDF ever sees it, and a hostile student hides the expected values there beside a
visible answer. Each piece of text pypdf extracts is kept only when where it starts lies on the
page (with a margin: a glyph may start just outside and still show); the pieces kept are
pypdf's own output, joined as `extract_text` joins them (graders/documents/pdf_scripts.py
`page_text`). Text that is on the page but hidden otherwise (invisible rendering, which OCR
layers of scans use; white; tiny) is still read.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

MARGIN = 0.1  # of the box's width or height, beyond each edge, still counted as on the page


def _bounds(page: Any) -> tuple[float, float, float, float]:
    box = page.cropbox
    left, bottom, right, top = (float(v) for v in (box.left, box.bottom, box.right, box.top))
    left, right = min(left, right), max(left, right)
    bottom, top = min(bottom, top), max(bottom, top)
    dx, dy = (right - left) * MARGIN + 36, (top - bottom) * MARGIN + 36
    return left - dx, bottom - dy, right + dx, top + dy


def on_page(page: Any) -> Callable[[Any, Any], bool]:
    """Whether a piece of text pypdf extracts, drawn with these matrices (`cm`, `tm`), starts
    on the page; a piece with no position to judge by counts as on it."""
    left, bottom, right, top = _bounds(page)

    def inside(cm: Any, tm: Any) -> bool:
        try:
            x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        except (TypeError, IndexError):
            return True
        return bool(left <= x <= right and bottom <= y <= top)

    return inside
