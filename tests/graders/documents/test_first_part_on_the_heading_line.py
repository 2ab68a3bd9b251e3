"""A LaTeX heading followed on its own line by the first sub-part, the next sub-part on a line
of its own (`\\paragraph{2.} (a) $q = ...$ \\\\` then `(b) ...`): the heading's text was taken
for an introduction to its sub-parts and left out, so the answer was `(b)` alone and the item
cued by `(a)` was "missing" at 0.85 (trial homework 4). Text that opens with the sub-part
before the next label's is that sub-part's answer; a real introduction is still left out."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents import read_submission
from tests.graders.documents.test_answer_tables import RUBRIC

HEADS = ["\\paragraph{{{n}.}}", "\\section*{{Q{n}}}", "\\subsection*{{Question {n}}}",
         "\\paragraph{{Q{n}}}"]
PAIRS = [("(a)", "(b)"), ("a)", "b)"), ("\\textbf{(a)}", "\\textbf{(b)}")]
BREAKS = [" \\\\\n", "\n\n", "\\\\\n"]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(HEADS), st.sampled_from(PAIRS), st.sampled_from(BREAKS))
def test_the_first_sub_part_on_the_heading_line_is_kept(
        head: str, pair: tuple[str, str], gap: str) -> None:
    first, second = pair
    text = "".join(f"{head.format(n=n)} {first} {100 + n}{gap}{second} {200 + n}\n\n"
                   for n in (1, 2))
    answers = read_submission(text.encode(), "hw.tex", None, RUBRIC).answers
    for n in (1, 2):
        got = answers[f"Q{n}"].text
        assert str(100 + n) in got and str(200 + n) in got, (text, got)


def test_an_introduction_before_the_first_sub_part_is_still_left_out() -> None:
    text = ("\\paragraph{1.} Consider the schedule below.\n\n(a) 101\n\n(b) 201\n\n"
            "\\paragraph{2.} (a) 102\n\n(b) 202\n")
    answers = read_submission(text.encode(), "hw.tex", None, RUBRIC).answers
    assert "Consider" not in answers["Q1"].text and "101" in answers["Q1"].text
