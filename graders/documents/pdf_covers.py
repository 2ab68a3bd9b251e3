"""Text a PDF page covers with a box filled over it afterwards: nobody sees it.

A page is painted in the order its content stream draws: a rectangle filled after a line of
text hides that line, whatever its colour (a white box on the white page, a box in the page's
own colour, a black redaction bar), and a hostile student hides the expected values under one
beside a visible answer. pypdf extracts the covered text with the rest. `Covers` follows the
drawing (pypdf's operator visitor, through `graders/documents/pdf_page.py`'s `Ink`): each
piece of text pypdf hands over, where its glyphs lie (estimated from its start, direction, size
and length: at least `_ADVANCE` of the size a glyph), and each rectangle filled opaque after
it. A piece lies under a box when the box holds its first and its last glyph. A fill counts
only when it is known to paint what it covers: not translucent (an ExtGState with `ca` below
1, a blend mode or a soft mask), not clipped by a path other than rectangles, drawn on the page
itself (a form's own coordinates are not followed) and among the first `MAX_COVERS`.
"""

from __future__ import annotations

import bisect
import contextlib
import math
from typing import Any

Box = tuple[float, float, float, float]  # left, bottom, right, top on the page
_FULL: Box = (-math.inf, -math.inf, math.inf, math.inf)
MAX_COVERS = 500  # opaque fills remembered; later ones are not judged
_ADVANCE = 0.4  # of the font size: the least a glyph advances, on average, in common fonts
_MIDDLE = 0.3  # of the font size above the baseline: inside every glyph of a line
_OPAQUE_BLENDS = frozenset({"/Normal", "/Compatible"})


def _meet(a: Box, b: Box) -> Box:
    return max(a[0], b[0]), max(a[1], b[1]), min(a[2], b[2]), min(a[3], b[3])


def _holds(box: Box, x: float, y: float) -> bool:
    return box[0] <= x <= box[2] and box[1] <= y <= box[3]


class Covers:
    """The fills and text pieces of one page, in drawing order."""

    def __init__(self, resources: Any = None) -> None:
        self.states: Any = None
        with contextlib.suppress(Exception):
            self.states = resources["/ExtGState"].get_object() if resources else None
        self.clip: Box | None = _FULL  # None: clipped by a path not followed
        self.opaque = True
        self.saved: list[tuple[Box | None, bool]] = []
        self.forms = 0  # forms being drawn, one inside another
        self.fills: list[tuple[int, Box]] = []  # pieces drawn before it, and the box
        self.spans: list[tuple[float, float, float, float] | None] = []  # first, last glyph

    def save(self) -> None:
        self.saved.append((self.clip, self.opaque))

    def restore(self) -> None:
        if self.saved:
            self.clip, self.opaque = self.saved.pop()

    def set_state(self, operands: list[Any]) -> None:
        """Follow `gs`: whether fills now paint opaque."""
        try:
            state = self.states[operands[0]].get_object()
            alpha = float(state.get("/ca", 1.0 if self.opaque else 0.0))
            blend = state.get("/BM", "/Normal")
            mask = state.get("/SMask", "/None")
            self.opaque = alpha >= 1 and str(blend) in _OPAQUE_BLENDS and str(mask) == "/None"
        except Exception:  # a state not found or not read: its fills are not judged
            self.opaque = False

    def clip_to(self, path: list[Box] | None) -> None:
        """Follow `W`: a clip to one rectangle is followed, any other is not."""
        if path is not None and len(path) == 1 and self.clip is not None:
            self.clip = _meet(self.clip, path[0])
        else:
            self.clip = None

    def fill(self, path: list[Box] | None) -> None:
        if path is None or self.clip is None or not self.opaque or self.forms:
            return
        for box in path[:max(0, MAX_COVERS - len(self.fills))]:
            self.fills.append((len(self.spans), _meet(box, self.clip)))

    def piece(self, cm: Any, tm: Any, size: float, text: str) -> None:
        """Where the glyphs of the piece pypdf hands over now lie."""
        span = None
        with contextlib.suppress(TypeError, IndexError, ValueError):
            x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
            along = (tm[0] * cm[0] + tm[1] * cm[2], tm[0] * cm[1] + tm[1] * cm[3])
            up = (tm[2] * cm[0] + tm[3] * cm[2], tm[2] * cm[1] + tm[3] * cm[3])
            lift, first = _MIDDLE * size, 0.1 * size
            last = max(first, _ADVANCE * size * len(text.strip()))
            span = (x + up[0] * lift + along[0] * first, y + up[1] * lift + along[1] * first,
                    x + up[0] * lift + along[0] * last, y + up[1] * lift + along[1] * last)
        self.spans.append(None if self.forms else span)

    def covered(self) -> set[int]:
        """The pieces (in the order handed over) that a later opaque fill holds."""
        counts = [count for count, _ in self.fills]
        hidden: set[int] = set()
        for index, span in enumerate(self.spans):
            if span is None:
                continue
            for _, box in self.fills[bisect.bisect_right(counts, index):]:
                if _holds(box, span[0], span[1]) and _holds(box, span[2], span[3]):
                    hidden.add(index)
                    break
        return hidden
