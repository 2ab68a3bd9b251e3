"""A PDF page's text as its page shows it: text drawn outside the page's visible box is left out.

A viewer shows only what lies within a page's crop box (its media box unless set); text placed
thousands of points beyond it is in the file's text layer, which pypdf extracts whole, yet no TA
reading the PDF ever sees it, and a hostile student hides the expected values there beside a
visible answer. Each piece of text pypdf extracts is kept only when where it starts lies on the
page (with a margin: a glyph may start just outside and still show); the pieces kept are
pypdf's own output, joined as `extract_text` joins them (graders/documents/pdf_scripts.py
`page_text`).

Text on the page can be drawn unseen too: in an invisible rendering mode, white on the white
page, a fraction of a point high, outside the rectangle the page is clipped to, or in an
optional content group (a layer) viewers hide by default (`Ink`); `page_text` leaves such
pieces out when the page shows other text. A run whose colour or mode changes inside it
(`(64 ) Tj 1 g (65 ) Tj 0 g (units) Tj`) is one piece to pypdf: such a page is read again with
the unseen shows emptied.
Text under a box filled over it afterwards is unseen too (graders/documents/pdf_covers.py).
A page whose text is all unseen is a scan's OCR layer (drawn invisible over the scanned image)
or a document drawn in some way not followed here, and is read whole.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from pypdf.generic import NameObject, TextStringObject

from graders.documents.pdf_covers import Covers

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


TINY = 1.0  # points: text drawn smaller than this no reader sees
_INVISIBLE_MODES = frozenset({3, 7})  # text rendering modes that paint no glyph
_SHOWS = frozenset({b"Tj", b"TJ", b"'", b'"'})
_FILLS = frozenset({b"f", b"F", b"f*", b"B", b"B*", b"b", b"b*"})
_IMAGES = frozenset({b"Do", b"sh", b"INLINE IMAGE"})  # an image or form, a shading, an inline one


def _white(operator: bytes, operands: list[Any]) -> bool:
    """Whether a colour operator sets white: gray 1, RGB 1 1 1, CMYK 0 0 0 0."""
    try:
        values = [float(v) for v in operands]
    except (TypeError, ValueError):
        return False  # a pattern or a named colour: not judged white
    if operator in (b"k", b"K") or (operator.lower() in (b"sc", b"scn") and len(values) == 4):
        return len(values) == 4 and all(v <= 0 for v in values)
    return bool(values) and len(values) in (1, 3) and all(v >= 1 for v in values)


_COLOURS = frozenset({b"g", b"rg", b"k", b"sc", b"scn", b"cs", b"G", b"RG", b"K", b"SC", b"SCN",
                      b"CS"})
_DEVICE = frozenset({"/DeviceGray", "/DeviceRGB", "/DeviceCMYK", "/CalGray", "/CalRGB"})
_SEEN, _INVISIBLE, _WHITE = 0, 1, 2  # how a show drew its glyphs
MAX_BOXES = 200  # filled rectangles remembered; past them the whole page counts as painted
_Box = tuple[float, float, float, float]


def _box(operands: list[Any], cm: Any) -> _Box | None:
    """The bounds on the page of a rectangle (`x y w h re`) drawn through `cm`."""
    try:
        x, y, w, h = (float(v) for v in operands[:4])
        corners = [(px * cm[0] + py * cm[2] + cm[4], px * cm[1] + py * cm[3] + cm[5])
                   for px, py in ((x, y), (x + w, y), (x, y + h), (x + w, y + h))]
    except (TypeError, ValueError, IndexError):
        return None
    xs, ys = [c[0] for c in corners], [c[1] for c in corners]
    return min(xs), min(ys), max(xs), max(ys)


CLIP_MARGIN = 2.0  # points beyond a clipping rectangle a piece may start and still show


def _off_groups(page: Any) -> frozenset[str]:
    """The names the page's marked content uses for optional content groups (layers) that the
    document hides by default (its default configuration's `/OFF`, or every group but those
    `/ON` under `/BaseState /OFF`); a membership dictionary (`/OCMD`) is not judged."""
    try:
        properties = page["/Resources"].get("/Properties")
        config = page.pdf.trailer["/Root"]["/OCProperties"]["/D"]
    except (KeyError, AttributeError, TypeError):
        return frozenset()
    if properties is None:
        return frozenset()

    def ids(name: str) -> set[int]:
        return {getattr(ref, "idnum", -1) for ref in config.get(name) or ()}

    off, on = ids("/OFF"), ids("/ON")
    all_off = config.get("/BaseState") == "/OFF"
    hidden = set()
    with contextlib.suppress(AttributeError, TypeError, KeyError):
        for name, ref in properties.items():
            number = getattr(ref, "idnum", -1)
            if ref.get_object().get("/Type") == "/OCG" and (
                    number in off or (all_off and number not in on)):
                hidden.add(str(name))
    return frozenset(hidden)


def _clipped(clip: _Box, box: _Box) -> _Box:
    return max(clip[0], box[0]), max(clip[1], box[1]), min(clip[2], box[2]), min(clip[3], box[3])


def _emptied(operator: bytes, operands: list[Any]) -> None:
    """A show's strings emptied in place: pypdf then extracts nothing of it."""
    at = 2 if operator == b'"' else 0
    if len(operands) <= at:
        return
    if operator == b"TJ" and isinstance(operands[0], list):
        operands[0][:] = [TextStringObject("") if isinstance(item, (str, bytes)) and
                          not isinstance(item, NameObject) else item for item in operands[0]]
    elif isinstance(operands[at], (str, bytes)):
        operands[at] = TextStringObject("")


class Ink:
    """What a page's text is drawn with, followed through pypdf's operator visitor: each piece
    of text pypdf hands its text visitor is judged unseen when every glyph in it was shown
    with an invisible rendering mode (3 or 7), in white where nothing was painted under it
    (white on a filled box shows; a fill other than rectangles, an image or a shading counts
    as painting the whole page), starting outside the rectangles the page is clipped to (a
    clip by curves is not judged), or inside marked content of a layer hidden by default; or
    when it is smaller than `TINY` points, or lies under a
    box filled after it (`Covers`). A piece whose colour or mode changed inside it, part seen
    and part unseen, is seen, and `mixed` is set: read again with `blank`, the strings of the
    shows drawn unseen are emptied as pypdf reads them, so only what shows is extracted."""

    def __init__(self, page: Any = None, *, blank: bool = False) -> None:
        self.covers = Covers(None if page is None else page.get("/Resources"))
        self.off_groups = frozenset() if page is None else _off_groups(page)
        self.clip: _Box | None = None  # the clipping rectangle, saved and restored by q and Q
        self.clips: list[_Box | None] = []
        self.marked: list[bool] = []  # open marked content: whether each is a hidden layer
        self.blank = blank
        self.mixed = False  # a piece held shows seen and unseen
        # (fill white, stroke white, rendering mode), saved and restored by q and Q
        self.state: tuple[bool, bool, int] = (False, False, 0)
        self.saved: list[tuple[tuple[bool, bool, int], tuple[bool, bool]]] = []
        self.device = (True, True)  # whether the fill and stroke colour spaces are plain ones
        self.boxes: list[_Box] = []  # rectangles filled in a colour, so far
        self.painted = False  # the whole page may be
        self.path: list[_Box] | None = []  # the path being built: its rectangles, or None
        self.pending: list[int] = []  # how each show since the last piece drew
        self.showing = False

    def _drawn(self) -> int:
        fill, stroke, mode = self.state
        if mode in _INVISIBLE_MODES:
            return _INVISIBLE
        white = (fill or mode in (1, 5)) and (stroke or mode in (0, 4))
        return _WHITE if white and not self.painted else _SEEN

    def _paint(self, operator: bytes, operands: list[Any], cm: Any) -> None:
        """Follow the path operators: which rectangles a fill in a colour covers."""
        if operator == b"re" and self.path is not None:
            box = _box(operands, cm)
            if box is None or len(self.path) >= MAX_BOXES:  # past them: not judged as boxes
                self.path = None
            else:
                self.path.append(box)
        elif operator in (b"m", b"l", b"c", b"v", b"y", b"h"):
            self.path = None
        if operator in _FILLS:
            self.covers.fill(self.path)
        if operator == b"Do":
            self.covers.forms += 1
        if operator in _IMAGES or (operator in _FILLS and not self.state[0]):
            if operator in _IMAGES or self.path is None or \
                    len(self.boxes) + len(self.path) > MAX_BOXES:
                self.painted = True
            else:
                self.boxes.extend(self.path)
        if operator in _FILLS or operator in (b"n", b"S", b"s"):
            self.path = []

    def _colour(self, operator: bytes, operands: list[Any]) -> None:
        """Follow a colour operator: whether fill or stroke is now white (in a plain colour
        space: a pattern's or an indexed space's colours are not judged)."""
        fill, stroke, mode = self.state
        stroking = operator.isupper()
        device = self.device[1] if stroking else self.device[0]
        if operator in (b"cs", b"CS"):
            device = bool(operands) and operands[0] in _DEVICE
            white = False
        else:
            device = device or operator not in (b"sc", b"scn", b"SC", b"SCN")
            white = device and _white(operator, operands)
        self.device = (self.device[0], device) if stroking else (device, self.device[1])
        self.state = (fill, white, mode) if stroking else (white, stroke, mode)

    def before(self, operator: bytes, operands: list[Any], cm: Any, _tm: Any) -> None:
        """pypdf's `visitor_operand_before`."""
        fill, stroke, _ = self.state
        self.showing = operator in _SHOWS
        if self.showing:
            drawn = _INVISIBLE if self._cut(cm, _tm) else self._drawn()
            self.pending.append(drawn)
            if self.blank and (drawn == _INVISIBLE or (drawn == _WHITE and not
                                                       self._on_a_box(cm, _tm))):
                _emptied(operator, operands)
        elif operator == b"q":
            self.saved.append((self.state, self.device))
            self.clips.append(self.clip)
            self.covers.save()
        elif operator == b"Q":
            if self.saved:
                self.state, self.device = self.saved.pop()
            if self.clips:
                self.clip = self.clips.pop()
            self.covers.restore()
        elif operator in (b"W", b"W*"):
            self.covers.clip_to(self.path)
            if self.path and len(self.path) <= MAX_BOXES:  # rectangles: what shows is in them
                box = (min(b[0] for b in self.path), min(b[1] for b in self.path),
                       max(b[2] for b in self.path), max(b[3] for b in self.path))
                self.clip = box if self.clip is None else _clipped(self.clip, box)
        elif operator in (b"BDC", b"BMC"):
            layer = operator == b"BDC" and len(operands) > 1 and operands[0] == "/OC" \
                and str(operands[1]) in self.off_groups
            self.marked.append(layer or (bool(self.marked) and self.marked[-1]))
        elif operator == b"EMC":
            if self.marked:
                self.marked.pop()
        elif operator == b"gs" and operands:
            self.covers.set_state(operands)
        elif operator == b"Tr" and operands:
            with contextlib.suppress(TypeError, ValueError):
                self.state = (fill, stroke, int(operands[0]))
        elif operator in _COLOURS:
            self._colour(operator, operands)
        else:
            self._paint(operator, operands, cm)

    def _cut(self, cm: Any, tm: Any) -> bool:
        """Whether a show starting here is in a hidden layer or clipped away."""
        if self.marked and self.marked[-1]:
            return True
        if self.clip is None:
            return False
        try:
            x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
            y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        except (TypeError, IndexError):
            return False
        left, bottom, right, top = self.clip
        return not (left - CLIP_MARGIN <= x <= right + CLIP_MARGIN
                    and bottom - CLIP_MARGIN <= y <= top + CLIP_MARGIN)

    def _on_a_box(self, cm: Any, tm: Any) -> bool:
        x = tm[4] * cm[0] + tm[5] * cm[2] + cm[4]
        y = tm[4] * cm[1] + tm[5] * cm[3] + cm[5]
        return self.painted or any(b[0] <= x <= b[2] and b[1] <= y <= b[3] for b in self.boxes)

    def after(self, operator: bytes, _operands: list[Any], _cm: Any, _tm: Any) -> None:
        """pypdf's `visitor_operand_after`: a form drawn by `Do` is done."""
        if operator == b"Do":
            self.covers.forms = max(0, self.covers.forms - 1)

    def unseen(self, cm: Any, tm: Any, size: float, text: str = "") -> bool:
        """Whether the piece of text pypdf hands its visitor now, drawn with these matrices
        and font size, is unseen; the shows it holds are then forgotten (but the one being
        drawn, which may belong to the next piece too). Where its glyphs lie is handed to
        `covers`: whether a box is filled over them is known only at the page's end."""
        self.covers.piece(cm, tm, size, text)
        pending = self.pending
        self.pending = pending[-1:] if self.showing else []
        try:
            white = _WHITE in pending and not self._on_a_box(cm, tm)
            hidden = bool(pending) and all(d == _INVISIBLE or (d == _WHITE and white)
                                           for d in pending)
            self.mixed = self.mixed or (not hidden and any(
                d == _INVISIBLE or (d == _WHITE and white) for d in pending))
            scale = ((tm[2] * cm[0] + tm[3] * cm[2]) ** 2 + (tm[2] * cm[1] + tm[3] * cm[3]) ** 2)
            return hidden or abs(size) * scale ** 0.5 < TINY
        except (TypeError, IndexError):
            return False
