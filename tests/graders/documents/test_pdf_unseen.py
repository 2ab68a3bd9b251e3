"""Class: PDFs whose text layer holds text drawn on the page but unseen: white on the white
page (gray, RGB or CMYK white), an invisible rendering mode (3, or 7: clip only), or a font a
fraction of a point high. pypdf extracts it with the rest, so a hostile student's hidden values
were read as answer text. Now such text is left out when the page shows other text, while
text in any colour that shows, in a visible mode, at a readable size, or white over a box
painted first, is read; and a page whose text is all invisible (a scan's OCR layer) is read
whole. The property draws lines in such ways and knows which are seen."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.formats import decode_document
from tests.attacks.pdf_lines import drawn_pdf

UNSEEN = st.sampled_from(["1 g", "1 1 1 rg", "0 0 0 0 k", "3 Tr", "7 Tr", "/F1 0.3 Tf",
                          "1 G 1 Tr", "/F1 10 Tf 0.05 0 0 0.05 0 0 Tm"])
SEEN = st.sampled_from(["", "0 g", "0.5 g", "1 0 0 rg", "0 0 0 1 k", "0 Tr", "1 g 1 Tr",
                        "2 Tr", "/F1 1.5 Tf", "0.5 0 0 0.5 0 0 cm /F1 20 Tf"])
ON_X, ON_Y = st.floats(0, 500), st.floats(20, 760)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.booleans(), ON_X, ON_Y, UNSEEN, SEEN), min_size=1, max_size=10))
def test_text_drawn_unseen_is_not_read(lines: list[tuple[bool, float, float, str, str]]) -> None:
    drawn = [(x, y, f"shown{n}q", seen) if on else (x, y, f"hidden{n}q", unseen)
             for n, (on, x, y, unseen, seen) in enumerate(lines)]
    drawn.insert(0, (72.0, 780.0, "B1 answer", ""))
    text = decode_document(drawn_pdf(drawn), "a.pdf", None).text
    for _, _, word, how in drawn[1:]:
        assert (word in text) == word.startswith("shown"), (word, how, text)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(ON_X, ON_Y), min_size=1, max_size=8))
def test_a_page_all_invisible_is_read(places: list[tuple[float, float]]) -> None:
    drawn = [(x, y, f"ocr{n}q", "3 Tr") for n, (x, y) in enumerate(places)]
    text = decode_document(drawn_pdf(drawn), "a.pdf", None).text
    assert all(word in text for _, _, word, _ in drawn), text


def test_white_text_over_a_painted_box_is_read() -> None:
    pdf = drawn_pdf([(72.0, 700.0, "B1 answer", ""),
                     (72.0, 680.0, "boxed64q", "0 0 1 rg 60 670 200 20 re f 1 g")])
    assert "boxed64q" in decode_document(pdf, "a.pdf", None).text


def test_white_text_beside_a_painted_box_is_not_read() -> None:
    pdf = drawn_pdf([(72.0, 700.0, "B1 answer", ""),
                     (72.0, 400.0, "white64q", "0 0 1 rg 60 670 200 20 re f 1 g")])
    assert "white64q" not in decode_document(pdf, "a.pdf", None).text


def test_colour_in_a_space_not_followed_is_read() -> None:
    """`1 sc` in an indexed or pattern space picks an entry, not white: read."""
    pdf = drawn_pdf([(72.0, 700.0, "B1 answer", ""),
                     (72.0, 400.0, "indexed64q", "/Cs1 cs 1 sc"),
                     (72.0, 380.0, "gray64q", "/DeviceGray cs 1 sc")])
    text = decode_document(pdf, "a.pdf", None).text
    assert "indexed64q" in text and "gray64q" not in text
