"""Class: PDFs whose text layer holds text drawn on the page but never shown, by means beyond
colour, rendering mode and size (test_pdf_unseen.py): text drawn outside the rectangle the page
is clipped to (`0 0 1 1 re W n` before it), and text inside marked content of an optional
content group (a layer) the document hides by default (`/OC /off BDC ... EMC`, the group in its
default configuration's `/OFF`). pypdf extracts both with the rest, so a hostile student's
hidden values were read as answer text. Now such text is left out when the page shows other
text, while text inside its clip, in a layer shown by default, or in other marked content is
read. The property draws lines in such ways and knows which are seen."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.formats import decode_document
from tests.attacks.pdf_lines import wrapped_pdf

# each wraps a line drawn at (x, y); a clip given by `{x}`, `{y}` is around that place
UNSEEN = st.sampled_from(["q 0 0 1 1 re W n %s Q", "q 600 0 10 10 re W n %s Q",
                          "q {x} {y} 300 50 re W n 0 0 1 1 re W n %s Q",
                          "/OC /off BDC q %s Q EMC", "/OC /off BDC /Span BMC q %s Q EMC EMC"])
SEEN = st.sampled_from(["q %s Q", "q {x} {y} 300 50 re W n %s Q", "q 0 0 612 792 re W* n %s Q",
                        "/OC /on BDC q %s Q EMC", "/Span BMC q %s Q EMC",
                        "/OC /off BDC EMC q %s Q", "q 0 0 1 1 re W n Q q %s Q",
                        "q 0 0 m 1 1 l 0 1 l h W n %s Q"])
ON_X, ON_Y = st.floats(20, 500), st.floats(20, 740)


def _at(wrap: str, x: float, y: float) -> str:
    return wrap.replace("{x}", f"{x - 5:.2f}").replace("{y}", f"{y - 5:.2f}")


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.booleans(), ON_X, ON_Y, UNSEEN, SEEN), min_size=1, max_size=10))
def test_text_clipped_away_or_in_a_hidden_layer_is_not_read(
        lines: list[tuple[bool, float, float, str, str]]) -> None:
    drawn = [(x, y, f"shown{n}q", _at(seen, x, y)) if on else
             (x, y, f"hidden{n}q", _at(unseen, x, y))
             for n, (on, x, y, unseen, seen) in enumerate(lines)]
    drawn.insert(0, (72.0, 780.0, "B1 answer", "q %s Q"))
    text = decode_document(wrapped_pdf(drawn), "a.pdf", None).text
    for _, _, word, how in drawn[1:]:
        assert (word in text) == word.startswith("shown"), (word, how, text)


@settings(max_examples=30, deadline=None)
@given(st.lists(st.tuples(ON_X, ON_Y), min_size=1, max_size=8))
def test_a_page_all_in_a_hidden_layer_is_read(places: list[tuple[float, float]]) -> None:
    drawn = [(x, y, f"layer{n}q", "/OC /off BDC q %s Q EMC") for n, (x, y) in enumerate(places)]
    text = decode_document(wrapped_pdf(drawn), "a.pdf", None).text
    assert all(word in text for _, _, word, _ in drawn), text


def test_a_path_of_a_hundred_thousand_rectangles_reads_in_linear_time() -> None:
    """Each rectangle of a path was added by copying the path so far: 1.5 MB of `re` operators
    cost 40 s of CPU (quadratic), now a few seconds."""
    clips = "0 0 1 1 re W " * 115_000
    pdf = wrapped_pdf([(40.0, 700.0, "B1 answer", "q %s Q"), (40.0, 680.0, "d = 64",
                                                             "q %s Q " + clips)])
    began = time.process_time()
    assert "d = 64" in decode_document(pdf, "a.pdf", None).text
    assert time.process_time() - began < 20
