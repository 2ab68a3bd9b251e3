"""A PDF page's text with its superscripts and subscripts kept as `^` and `_`.

A PDF draws a superscript as a run of smaller glyphs raised above the line (`4096<sup>2</sup>`
printed from HTML, `T^2` from LaTeX): pypdf's text runs it into the line, `40962`, `1.4 × 1010`,
`2b−1`, `din`, so a value or a formula is read wrong with confidence. The text pypdf extracts is
kept as it is, and each run drawn smaller and off the line before it gets its mark: `4096^2`,
`1.4 × 10^10`, `2^(b−1)`, `d_in`. A run is marked only where it stands in the extracted text
right after what came before it, so a page whose drawing order differs from its text is left
as pypdf read it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graders.documents.pdf_page import Ink, on_page

SMALLER = 0.9  # a script is drawn at most this share of its line's size
# and moved off the line's baseline by more than this share of the line's size, less than one
# line: a smaller word on the baseline, or the next line, is no script
_MIN_SHIFT, _MAX_SHIFT = 0.15, 0.7
MAX_SCRIPT = 12  # characters: a longer smaller run is a footnote or a caption


@dataclass(frozen=True)
class _Run:
    text: str
    y: float  # the baseline's height on the page (up is more)
    size: float  # the drawn size


def _run(text: str, cm: list[float], tm: list[float], size: float) -> _Run:
    # the text matrix's origin through the current transformation matrix; the size drawn is
    # the font size scaled by both matrices' vertical scale (a flipped page scales by -1)
    y = cm[1] * tm[4] + cm[3] * tm[5] + cm[5]
    return _Run(text, y, abs(size * tm[3] * cm[3]) or abs(size))


def _scripts(runs: list[_Run]) -> list[tuple[_Run, str]]:
    """Each run with its mark: `^` raised, `_` lowered, "" on the line."""
    marked: list[tuple[_Run, str]] = []
    base: _Run | None = None
    for run in runs:
        mark = ""
        if base is not None and len(run.text.strip()) <= MAX_SCRIPT and \
                run.size <= SMALLER * base.size:
            shift = run.y - base.y
            if _MIN_SHIFT * base.size < abs(shift) < _MAX_SHIFT * base.size:
                mark = "^" if shift > 0 else "_"
        if not mark:
            base = run
        marked.append((run, mark))
    return marked


def _written(text: str, mark: str, after: str) -> str:
    """The script after its mark, in brackets unless it is one word or number with no name or
    number right after it (`10^10 bytes`, `4T^(2)d`, `2^(b−1)`)."""
    body = text.strip()
    plain = (body.isalnum() or body.replace(".", "", 1).isdigit()) and not after[:1].isalnum()
    return f"{mark}{body}" if plain else f"{mark}({body})"


_Piece = tuple[str, _Run | None, bool]  # a piece's text, its run and whether unseen


def _pieces(page: Any, *, blank: bool) -> tuple[list[_Piece], Ink]:
    """The pieces of text pypdf extracts from the page, those starting off it left out;
    `blank`: with the unseen part of a run emptied (`Ink`)."""
    pieces: list[_Piece] = []
    judged: list[int] = []  # which pieces `ink` judged, in order
    inside = on_page(page)
    ink = Ink(page, blank=blank)

    def visit(text: str, cm: list[float], tm: list[float], _font: Any, size: float) -> None:
        if not text.strip():  # pypdf's own line breaks and spaces: layout, kept
            pieces.append((text, None, False))
        elif inside(cm, tm):
            unseen = ink.unseen(cm, tm, float(size), text)
            judged.append(len(pieces))
            pieces.append((text, _run(text, list(cm), list(tm), float(size)), unseen))

    page.extract_text(visitor_text=visit, visitor_operand_before=ink.before,
                      visitor_operand_after=ink.after)
    for index in ink.covers.covered():  # a box filled over it: unseen too
        text, run, _ = pieces[judged[index]]
        pieces[judged[index]] = (text, run, True)
    return pieces, ink


def _shown(pieces: list[_Piece]) -> bool:
    return any(run is not None and not unseen for _, run, unseen in pieces)


def page_text(page: Any) -> str:
    """The page's text as pypdf extracts it, but for the pieces that start off the page or are
    drawn unseen beside text that shows (graders/documents/pdf_page.py), each script marked
    where it stands. A page where a run is part seen, part unseen is read again with the unseen
    part left out."""
    pieces, ink = _pieces(page, blank=False)
    # unseen text beside text that shows is hidden; a page all unseen (a scan's OCR) is read
    shown = _shown(pieces)
    if shown and ink.mixed:
        pieces, _ = _pieces(page, blank=True)
    kept = [(text, run) for text, run, unseen in pieces if not (shown and unseen)]
    runs = [run for _, run in kept if run is not None]
    text = "".join(text for text, _ in kept)
    out: list[str] = []
    cursor = 0
    for run, mark in _scripts(runs):
        at = text.find(run.text, cursor)
        if at < 0 or text[cursor:at].strip():
            continue  # not where the drawing order puts it: left as read
        end = at + len(run.text)
        out.append(text[cursor:at])
        out.append(_written(run.text, mark, text[end:end + 1]) if mark else run.text)
        cursor = end
    out.append(text[cursor:])
    return "".join(out)
