"""A bare number opening a line before its first sub-part in emphasis (`6 **(a)** B`, `3 __a)__
0.25`), then the other sub-parts on lines of their own: how a transcript of a handwritten page
or a quick Markdown answer numbers its questions. The number was read as a label only before a
plain marker (`3 (a) ...`), so the question was read by content or order, or "missing"."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.locate import locate
from graders.rubric import parse_rubric
from tests.graders.documents.numbered import numbered_rubric

N = 5
RUBRIC = parse_rubric(numbered_rubric("bold", N)).rubric

MARKERS = ["**({p})**", "__({p})__", "**{p})**", "**{p}.**", "*({p})*", "_({p})_"]


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(MARKERS), st.integers(2, N), st.booleans(), st.booleans())
def test_a_bare_number_before_its_first_sub_part_in_emphasis_labels_it(
        marker: str, count: int, blank_lines: bool, title: bool) -> None:
    gap = "\n\n" if blank_lines else "\n"
    blocks = [f"{n} {marker.format(p='a')} {100 + n}{gap}{marker.format(p='b')} {200 + n}"
              for n in range(1, count + 1)]
    text = ("# Homework 3\n\n" if title else "") + "\n\n".join(blocks) + "\n"
    location = locate(text, RUBRIC)
    for n in range(1, count + 1):
        answer = location.answers.get(f"Q{n}")
        assert answer is not None, (n, location.missing, text)
        assert answer.method == "label", (n, answer, text)
        assert str(100 + n) in answer.text and str(200 + n) in answer.text, (n, answer.text, text)
        others = [str(v + m) for m in range(1, N + 1) if m != n for v in (100, 200)]
        assert not any(o in answer.text for o in others), (n, answer.text, text)
