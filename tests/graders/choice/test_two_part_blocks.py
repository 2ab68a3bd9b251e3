"""A two-part quiz answered in one block (trial 9): `Q7. (a) B (b) A, B, D`, `7) a) B b) A, B,
D`, `\\item[(a)] B \\item[(b)] A, B, D`, where the locator takes the first marker with the
question's label and one marker, `(b)`, is left; and parts marked with the question's number,
`**7.a** B **7.b** A, B and D`, `Q7.a`, `7(a)`, `7a)`; an option's letter and a dash before the
student's reason, `B — only the adapters; W stays frozen`; several letters separated by spaces
alone, `A B D` (a transcript's way). Before, a run of parts needed two markers
after the first part and no marker carried a number before its letter: both items read the
whole block and went to review at 0 ("'b (b) a, b, d' is none of the choices offered")."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.choice.subparts import part_of
from graders.documents.submission import read_submission
from graders.engine import grade_submission
from graders.results import ItemResult, Status
from graders.rubric import parse_rubric

RUBRIC = parse_rubric("""
slug: quiz2
title: A two-part quiz in a document
questions:
  - id: Q7
    labels: ["Q7", "Question 7", "7"]
    items:
      - id: q7.trained
        points: 1
        grader: choice
        config: {subpart: a, choices: [A, B, C, D], correct: B}
      - id: q7.memory
        points: 1
        grader: choice
        config: {choices: [A, B, C, D, E], correct: [A, B, D], select: several,
                 scoring: right_minus_wrong}
""", "quiz2.yaml")

_FIRST = ("(a)", "a)", "a.", "**(a)**", "(i)", "i)")
_NUMBERED = ("**7.a**", "7.a", "Q7.a", "7(a)", "7a)", "**7a.**", "7.a)")


def _second(first: str) -> str:
    return first.replace("i", "ii") if first in ("(i)", "i)") else first.replace("a", "b")


@st.composite
def _blocks(draw: st.DrawFn) -> tuple[str, str, dict[str, Decimal]]:
    trained = draw(st.sampled_from(["B", "b", "C", "B \u2013 A and B only", "B\u2014the adapters",
                                    "B \u2014 only the adapter matrices; W stays frozen"]))
    memory = draw(st.sampled_from(["A, B, D", "A, B and D", "A; B; D", "A, D", "A, B, C, D",
                                   "A B D", "a  b  d", "A D"]))
    join = draw(st.sampled_from(["   ", " ", "\n", r" \quad "]))
    style = draw(st.sampled_from(["label", "numbered", "latex"]))
    if style == "numbered":
        first = draw(st.sampled_from(_NUMBERED))
        heading = draw(st.sampled_from(["## Question 7\n", "Q7.\n", "## Problem 7\n\n"]))
        block = f"{heading}{first} {trained}{join}{_second(first)} {memory}"
        name = "quiz.md"
    elif style == "latex":
        block = (f"\\section*{{Question 7}}\n\\begin{{enumerate}}\n\\item[(a)] {trained}{join}"
                 f"\\item[(b)] {memory}\n\\end{{enumerate}}")
        name = "quiz.tex"
    else:
        first = draw(st.sampled_from(_FIRST))
        heading = draw(st.sampled_from(["Q7. ", "7) ", "Question 7: ", "**Q7** "]))
        block = f"{heading}{first} {trained}{join}{_second(first)} {memory}"
        name = "quiz.md"
    right = {"A, B, D": 1, "A, B and D": 1, "A; B; D": 1, "A, D": Decimal(2) / 3,
             "A, B, C, D": Decimal(2) / 3, "A B D": 1, "a  b  d": 1, "A D": Decimal(2) / 3}[memory]
    text = f"# HW\n\n{block}\n" if name == "quiz.md" else (
        f"\\documentclass{{article}}\n\\begin{{document}}\n{block}\n\\end{{document}}\n")
    return name, text, {"q7.trained": Decimal(0 if trained == "C" else 1),  # B with a reason
                        "q7.memory": Decimal(right)}


def _grade(name: str, text: str) -> dict[str, ItemResult]:
    kind = "text/markdown" if name.endswith(".md") else "text/x-tex"
    parsed = read_submission(text.encode(), name, kind, RUBRIC.rubric)
    return {r.item_id: r for r in grade_submission(RUBRIC, parsed).items}


@settings(max_examples=80, deadline=None, database=None, derandomize=True)
@given(_blocks())
def test_each_item_of_a_two_part_block_reads_its_part(
        case: tuple[str, str, dict[str, Decimal]]) -> None:
    name, text, expected = case
    results = _grade(name, text)
    for item, points in expected.items():
        result = results[item]
        assert result.status == Status.GRADED, (text, result)  # 0.9 for a letter then a reason
        assert abs(Decimal(result.points) - points) < Decimal("0.01"), (text, result)


def test_a_lone_marker_in_prose_is_no_part() -> None:
    # one marker after text is a second part only where the text before it is short, as an
    # answer's first part is; a sentence that cites "(b)" is no block of parts
    assert part_of("I think the answer must be B because (b) in the notes says so and more",
                   "a", 1) is None
