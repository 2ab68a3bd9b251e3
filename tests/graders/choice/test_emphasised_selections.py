"""Choices a student emphasised in Markdown: `(a) **B**`, `(b) **A, B, D**`, `**A**, **B**`,
`*C*`, `__B__`, `` `B` `` (trial 10's eve.md bolds every answer). The emphasis is the
student's formatting, not part of the choice. Before: `**b**` was none of the choices offered,
and the item went to review at 0."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.submission import read_submission
from graders.engine import grade_submission
from graders.results import Status
from graders.rubric import LoadedRubric, parse_rubric

RUBRIC = parse_rubric("""
slug: emphasis
title: Emphasised choices
questions:
  - id: Q6
    items:
      - {id: q6.one, points: 1, grader: choice,
         config: {subpart: a, choices: [A, B, C, D], correct: B}}
      - {id: q6.several, points: 3, grader: choice,
         config: {subpart: b, choices: [A, B, C, D, E], correct: [A, B, D],
                  select: several, scoring: right_minus_wrong}}
""", "emphasis.yaml")
_WRAPS = ("**{}**", "*{}*", "__{}__", "_{}_", "`{}`", "***{}***")


def _grade(item_id: str, text: str, rubric: LoadedRubric = RUBRIC) -> tuple[Status, Fraction]:
    parsed = read_submission(text.encode(), "quiz.md", "text/markdown", rubric.rubric)
    result = next(r for r in grade_submission(rubric, parsed).items if r.item_id == item_id)
    return result.status, Fraction(result.points)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_WRAPS), st.sampled_from("ABCD"),
       st.lists(st.sampled_from("ABCDE"), min_size=1, max_size=4, unique=True),
       st.booleans(), st.sampled_from(["\n", "   "]))
def test_emphasis_around_the_selections_is_formatting(
        wrap: str, one: str, several: list[str], each: bool, join: str) -> None:
    listed = (", ".join(wrap.format(s) for s in several) if each
              else wrap.format(", ".join(several)))
    text = f"# Quiz\n\n## Q6\n\n(a) {wrap.format(one)}{join}(b) {listed}"
    assert _grade("q6.one", text) == (Status.GRADED, Fraction(int(one == "B"))), text
    right = len(set(several) & {"A", "B", "D"})
    share = max(Fraction(0), Fraction(right - (len(several) - right), 3))
    assert _grade("q6.several", text) == (Status.GRADED, 3 * share), text


def test_a_choice_spelled_with_the_characters_is_left_as_it_is() -> None:
    rubric = parse_rubric("""
slug: exact
title: An exact match
questions:
  - id: Q1
    items:
      - {id: q1.name, points: 1, grader: choice, config: {correct: ["__init__"]}}
""", "exact.yaml")
    assert _grade("q1.name", "## Q1\n\n__init__\n", rubric) == (Status.GRADED, 1)
