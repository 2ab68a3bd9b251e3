"""A section whose first sub-parts are answered before the first marker the locator reads (trial
8's dia.tex and ned.tex: `\\section*{Question 4}`, an align environment with F = 4T^2 d, then
`(b) ...`, `(c) ...`; or the parts' markers inside the align, `\\text{(a)}`, `\\text{(b)}`, then
`(c) ...`). Text between a heading and its first child label is the heading's introduction only
when that child is the first sub-part (`(a)`, `(i)`): before `(b)` or `(c)` it is the earlier
parts' answer. Before, it was dropped as an introduction: the formula item graded the (b)
evaluation (0 at 0.85) and (a), (b) values went to review."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents import read_submission
from graders.rubric import parse_rubric

RUBRIC = parse_rubric("""
slug: parts
title: Sub-parts after a section heading
questions:
  - id: Q3
    labels: ["Q3", "Question 3", "3"]
    answer_kind: numeric
    items:
      - {id: q3.a, points: 1, grader: numeric, config: {expected: 536870912, cues: ["(a)"]}}
      - {id: q3.b, points: 1, grader: numeric, config: {expected: 1610612736, cues: ["(b)"]}}
      - {id: q3.c, points: 1, grader: numeric, config: {expected: 0.25, form: factor}}
  - id: Q4
    labels: ["Q4", "Question 4", "4"]
    answer_kind: derivation
    items:
      - {id: q4.f, points: 1, grader: symbolic, config: {mode: equivalent, target: F,
                                                         expected: "4*T^2*d"}}
      - {id: q4.v, points: 1, grader: numeric, config: {expected: 2147483648, cues: ["(b)"]}}
""").rubric

FIRSTS = [
    "\\begin{{align*}}\nF &= 2T^2 d + 2T^2 d \\\\\n  &= 4T^2 d\n\\end{{align*}}",
    "{intro}\n\\begin{{align*}}\nF = 4 T^2 d\n\\end{{align*}}",
    "$$F = 4T^2 d$$",
    "{intro} $F = 4T^2d$.",
]
INTROS = ["Counting both products:", "Each product costs 2T^2 d FLOPs, so", "Here"]
HEADINGS = ["\\section*{{Question {n}}}", "\\subsection*{{Question {n}}}", "\\section*{{{n}.}}"]
LATER = ["(b)", "\\textbf{(b)}", "b)"]


@settings(max_examples=40, deadline=None, database=None, derandomize=True)
@given(st.sampled_from(FIRSTS), st.sampled_from(INTROS), st.sampled_from(HEADINGS),
       st.sampled_from(LATER))
def test_the_first_part_before_a_later_marker_is_in_the_answer(
        first: str, intro: str, heading: str, later: str) -> None:
    q3 = ("\\begin{align*}\n\\text{(a)}\\quad M &= 536{,}870{,}912 \\text{ bytes}\\\\\n"
          "\\text{(b)}\\quad S &= 1{,}610{,}612{,}736 \\text{ bytes}\n\\end{align*}\n"
          "(c) The cache shrinks by a factor of 4.")
    q4 = (first.format(intro=intro) + f"\n\n{later} $F = 4 \\cdot 2048^2 \\cdot 128 = 2^{{31}}$"
          " FLOPs.")
    text = ("\\documentclass{article}\n\\begin{document}\n"
            f"{heading.format(n=3)}\n{q3}\n\n{heading.format(n=4)}\n{q4}\n\\end{{document}}\n")
    parsed = read_submission(text.encode(), "hw.tex", "text/x-tex", RUBRIC)
    assert "536{,}870{,}912" in parsed.answers["Q3"].text, (text, parsed.answers["Q3"])
    assert "4T^2" in parsed.answers["Q4"].text.replace(" ", ""), (text, parsed.answers["Q4"])
    assert "2048" in parsed.answers["Q4"].text, parsed.answers["Q4"]


def test_an_introduction_before_the_first_part_is_still_left_out() -> None:
    text = ("\\section*{Question 4}\nRecall that attention has two products.\n\n(a) $F = 4T^2 d$"
            "\n\n(b) $2^{31}$ FLOPs\n")
    parsed = read_submission(text.encode(), "hw.tex", "text/x-tex", RUBRIC)
    assert "Recall" not in parsed.answers["Q4"].text
