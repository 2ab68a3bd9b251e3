"""Class: PDFs that hide text inside what a reader sees. (1) One run of text whose colour or
rendering mode changes mid-run: `(B1: 64 ) Tj 1 g (65 66 ) Tj 0 g (units) Tj` shows `B1: 64
units`, the white (or invisible, `3 Tr`) part unseen between visible words; pypdf hands the
whole run as one piece, so it was read whole. (2) Text covered by a rectangle filled over it
afterwards, a white box, one in the page's colour or any opaque one: nobody sees what is under
it, yet it was read. Now the unseen part of a run is left out and a covered piece is hidden like
unseen text (when the page shows other text), while a box drawn before the text (text on a
box), a box beside it, only stroked, clipped away from it or translucent hides nothing, and a
page whose text is all invisible (a scan's OCR layer) is still read whole. The properties draw
such pages and know which words show."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.formats import decode_document
from tests.graders.documents.pdf_fixture import pdf_of_stream

HIDES = st.sampled_from(["0 Tr 1 g", "0 Tr 1 1 1 rg", "0 Tr 0 0 0 0 k", "3 Tr", "7 Tr",
                        "1 g 1 G 2 Tr"])
SHOWS = st.sampled_from(["0 g 0 Tr", "0.5 g 0 Tr", "1 0 0 rg 0 Tr", "0 Tr 0 0 0 1 k",
                         "1 g 0 G 1 Tr"])
ON_Y = st.integers(2, 70).map(lambda n: n * 10)
_TRANSLUCENT = b"/ExtGState << /Half << /ca 0.3 >> /Opaque << /ca 1 >> >>"


def _read(stream: str) -> str:
    return decode_document(pdf_of_stream(stream.encode(), _TRANSLUCENT), "a.pdf", None).text


@settings(max_examples=120, deadline=None)
@given(st.lists(st.lists(st.tuples(st.booleans(), HIDES, SHOWS), min_size=1, max_size=5),
                min_size=1, max_size=6, unique_by=len))
def test_the_unseen_part_of_a_run_is_not_read(runs: list[list[tuple[bool, str, str]]]) -> None:
    ops = ["BT /F1 10 Tf 72 760 Td (B1 answer) Tj ET"]
    words: list[tuple[str, bool]] = []
    for line, run in enumerate(runs):
        shows = []
        for n, (shown, hides, seen) in enumerate(run):
            word = f"{'shown' if shown else 'hidden'}{line}x{n}q"
            words.append((word, shown))
            shows.append(f"{seen if shown else hides} ({word} ) Tj")
        ops.append(f"q BT /F1 10 Tf 72 {700 - 20 * line} Td {' '.join(shows)} ET Q")
    text = _read(" ".join(ops))
    for word, shown in words:
        assert (word in text) == shown, (word, text)


# how a box is drawn over (or near) a line of text at (72, y): whether it hides the line
COVERS = st.sampled_from(["1 g", "0 g", "0.8 0.8 0.8 rg", "1 1 1 rg", "0 0 0 0 k",
                          "/Opaque gs 1 g"]).map(lambda c: (f"{c} {{box}} f", True))
LEAVES = st.sampled_from([
    "1 g {beside} f",  # beside the line
    "0 G {box} S",  # stroked, not filled
    "/Half gs 0 g {box} f",  # translucent
    "100 0 20 20 re W n 0 g {box} f",  # clipped to elsewhere
]).map(lambda c: (c, False))


@settings(max_examples=120, deadline=None)
@given(st.lists(st.tuples(ON_Y, st.one_of(COVERS, LEAVES), st.booleans()), min_size=1,
                max_size=8, unique_by=lambda t: t[0]))
def test_text_under_a_box_filled_over_it_is_not_read(
        lines: list[tuple[int, tuple[str, bool], bool]]) -> None:
    ops = ["BT /F1 10 Tf 72 760 Td (B1 answer) Tj ET"]
    words: list[tuple[str, bool]] = []
    for n, (y, (how, hides), before) in enumerate(lines):
        box, beside = f"68 {y - 4} 90 16 re", f"300 {y - 4} 90 16 re"
        paint = "q " + how.format(box=box, beside=beside) + " Q"
        text = f"BT /F1 10 Tf 72 {y} Td (line{n}q) Tj ET"
        ops.append(f"{paint} {text}" if before else f"{text} {paint}")
        words.append((f"line{n}q", before or not hides))
    read = _read(" ".join(ops))
    for word, shows in words:
        assert (word in read) == shows, (word, read)


def test_a_box_over_part_of_a_line_hides_nothing() -> None:
    read = _read("BT /F1 10 Tf 72 700 Td (B1: d = 64 and more words) Tj ET q 1 g 68 696 20 16 "
                 "re f Q")
    assert "d = 64 and more words" in read


def test_a_scan_layer_under_its_image_is_read() -> None:
    read = _read("BT 3 Tr /F1 10 Tf 72 700 Td (ocr64q) Tj ET q 1 g 0 0 612 792 re f Q")
    assert "ocr64q" in read
