"""Superscripts and subscripts in a PDF's text (trial 8's `4T<sup>2</sup>d`, trial 9's
`1.4 × 10<sup>10</sup>`, `2<sup>b−1</sup>`, `d<sub>in</sub>`, printed from HTML; LaTeX's `T^2`
alike): a run drawn smaller and raised (lowered) against its line is written `^` (`_`) before it,
`4096^2`, `10^10`, `2^(b-1)`, `d_in`, on pages drawn upright or flipped (Chromium's). Before,
pypdf ran them into the line, `40962`, `1.4 × 1010`, `2b−1`, `din`: the values and formulas read
wrong at confidence 0.85."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st
from pypdf import PdfReader

from graders.documents.formats import decode_document
from graders.documents.pdf_scripts import page_text
from tests.graders.documents.pdf_fixture import pdf_of_stream

_GLYPH = 0.556  # Helvetica's width of each character drawn here, in ems
_ALPHABET = "0123456789bdnq"


def _draw(lines: list[list[tuple[str, str]]], size: float, ratio: float, shift: float,
          flipped: bool) -> bytes:
    ops = ["q 0.75 0 0 -0.75 0 792 cm" if flipped else "q"]
    for row, runs in enumerate(lines):
        x, base = 40.0, (100.0 + 3 * size * row if flipped else 700.0 - 3 * size * row)
        for text, mark in runs:
            drawn = size * ratio if mark else size
            up = {"^": 1, "_": -1, "": 0}[mark] * shift * size
            y = base - up if flipped else base + up
            ops.append(f"BT /F1 {drawn:.2f} Tf 1 0 0 {-1 if flipped else 1} {x:.2f} {y:.2f} Tm "
                       f"({text}) Tj ET")
            x += _GLYPH * drawn * len(text)
    ops.append("Q")
    return pdf_of_stream(" ".join(ops).encode())


_TEXT = st.text(_ALPHABET, min_size=1, max_size=4)


@st.composite
def _pages(draw: st.DrawFn) -> tuple[list[list[tuple[str, str]]], float, float, float, bool]:
    lines = []
    for _ in range(draw(st.integers(1, 3))):
        runs = [(draw(_TEXT), "")]
        for _ in range(draw(st.integers(0, 3))):
            runs.append((draw(_TEXT), draw(st.sampled_from(["^", "_"]))))
            runs.append((draw(_TEXT), ""))
        lines.append(runs)
    return (lines, draw(st.sampled_from([9.0, 11.0, 12.0, 16.0])),
            draw(st.sampled_from([0.58, 0.7, 0.83])), draw(st.sampled_from([0.25, 0.33, 0.4])),
            draw(st.booleans()))


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(_pages())
def test_each_script_is_marked_where_it_stands(
        page: tuple[list[list[tuple[str, str]]], float, float, float, bool]) -> None:
    lines, size, ratio, shift, flipped = page
    raw = _draw(lines, size, ratio, shift, flipped)
    text = page_text(PdfReader(io.BytesIO(raw)).pages[0])
    # a script with a name or number right after it is bracketed: `4T^(2)d`, not `4T^2d`
    want = ["".join(f"{mark}({t})" if mark and i + 1 < len(runs) else mark + t
                    for i, (t, mark) in enumerate(runs)) for runs in lines]
    assert [line.strip() for line in text.splitlines() if line.strip()] == want, (text, want)


def test_a_pdf_upload_reads_its_powers() -> None:
    raw = _draw([[("14", ""), ("9", "^"), ("2", "")], [("d", ""), ("in", "_")]], 12.0, 0.7,
                0.33, True)
    decoded = decode_document(raw, "hw.pdf", "application/pdf")
    assert decoded.text.split() == ["14^(9)2", "d_in"]
