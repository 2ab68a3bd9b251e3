"""Class: PDFs whose text layer holds text drawn off the page. A viewer shows only what lies in
a page's crop box; pypdf extracts the whole text layer, so values drawn thousands of points
away (a hostile student's hidden answer) were read as answer text. Now a piece of text that
starts off the page (beyond a margin of a tenth of the page and half an inch) is left out; every
line drawn on the page, anywhere on it, is still read, in the same order."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.formats import decode_document
from tests.attacks.pdf_lines import lines_pdf

ON_X, ON_Y = st.floats(0, 560), st.floats(10, 780)  # a 612 x 792 page
OFF = st.one_of(st.tuples(st.floats(760, 9000), st.floats(-9000, 9000)),
                st.tuples(st.floats(-9000, -120), st.floats(-9000, 9000)),
                st.tuples(st.floats(-9000, 9000), st.floats(950, 9000)),
                st.tuples(st.floats(-9000, 9000), st.floats(-9000, -150)))


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.booleans(), ON_X, ON_Y, OFF), min_size=1, max_size=12))
def test_text_drawn_off_the_page_is_not_read(lines: list[tuple[bool, float, float,
                                                                 tuple[float, float]]]) -> None:
    drawn = [(x, y, f"shown{n}q") if on else (off[0], off[1], f"hidden{n}q")
             for n, (on, x, y, off) in enumerate(lines)]
    drawn.insert(0, (72.0, 720.0, "B1 answer"))
    text = decode_document(lines_pdf(drawn), "a.pdf", None).text
    for x, y, word in drawn[1:]:  # (lines at one height are read joined: a substring each)
        assert (word in text) == word.startswith("shown"), (word, x, y, text)
