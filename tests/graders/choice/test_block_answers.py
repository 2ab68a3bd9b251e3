"""A quiz of several choice items answered in one block of a document, as students write it in
Markdown, LaTeX, a notebook or a transcript: `(a) B (b) A, C, E (c) softmax`, one part a line
or all on one line, `a)`, `a.`, `**(a)**` or `(i)`, LaTeX spacing between parts, the first
marker taken with the question's label (`Q6 (a) B (b) ...`), an option's label followed by its
text (`B) sqrt(d_k)`). Each item reads its own part (before: every item read the whole block,
the exact-match item graded 0 at confidence 1 and the choice items sent to review)."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.submission import read_submission
from graders.engine import grade_submission
from graders.results import ItemResult, Status
from graders.rubric import LoadedRubric, parse_rubric

RUBRIC = parse_rubric("""
slug: quiz
title: A quiz in a document
questions:
  - id: Q6
    labels: ["Q6", "Question 6", "6"]
    items:
      - id: q6.scale
        points: 1
        grader: choice
        config: {choices: [A, B, C, D], correct: B}
      - id: q6.masks
        points: 3
        grader: choice
        config: {choices: [A, B, C, D, E], correct: [A, C, E], select: several,
                 scoring: right_minus_wrong}
      - id: q6.name
        points: 1
        grader: choice
        config: {correct: [softmax, soft-max]}
""", "quiz.yaml")

_LABELS = {"letter": ("a", "b", "c"), "roman": ("i", "ii", "iii"), "number": ("1", "2", "3")}
_FORMS = ("({})", "{})", "{}.", "**({})**", "{}:")


@st.composite
def _blocks(draw: st.DrawFn) -> tuple[str, dict[str, Decimal]]:
    kind = draw(st.sampled_from(sorted(_LABELS)))
    form = draw(st.sampled_from(_FORMS))
    if form == "{}." and kind == "number":
        form = "({})"  # "1." lines are the question's own numbering in many documents
    scale = draw(st.sampled_from(["B", "b", "B) sqrt(d_k)", "(B) sqrt d_k", "C"]))
    masks = draw(st.sampled_from(["A, C, E", "A, C and E", "A; C; E", "A, C", "A, B"]))
    name = draw(st.sampled_from(["softmax", "Softmax.", "soft-max", "sigmoid"]))
    parts = [scale, masks, name]
    layout = draw(st.sampled_from(["lines", "one line", "latex"]))
    join = {"lines": "\n", "one line": "   ", "latex": r" \quad "}[layout]
    marks = [form.format(label) for label in _LABELS[kind]]
    heading = draw(st.sampled_from(["## Q6\n", "Question 6\n", "Q6 "]))
    block = heading + join.join(f"{m} {p}" for m, p in zip(marks, parts, strict=True))
    right = {"A, C, E": 3, "A, C and E": 3, "A; C; E": 3, "A, C": 2, "A, B": 0}[masks]
    expected = {"q6.scale": Decimal(0 if scale == "C" else 1), "q6.masks": Decimal(right),
                "q6.name": Decimal(0 if name == "sigmoid" else 1)}
    return f"# Quiz\n\n{block}\n", expected


def _grade(rubric: LoadedRubric, text: str) -> dict[str, ItemResult]:
    parsed = read_submission(text.encode(), "quiz.md", "text/markdown", rubric.rubric)
    return {r.item_id: r for r in grade_submission(rubric, parsed).items}


@settings(max_examples=60, deadline=None)
@given(_blocks())
def test_each_choice_item_reads_its_own_part_of_a_block(case: tuple[str, dict[str, Decimal]]
                                                          ) -> None:
    text, expected = case
    results = _grade(RUBRIC, text)
    for item, points in expected.items():
        result = results[item]
        assert (result.status, result.points) == (Status.GRADED, points), (text, result)


def test_a_block_without_markers_is_read_whole() -> None:
    results = _grade(RUBRIC, "# Quiz\n\n## Q6\nB\n")
    assert (results["q6.scale"].status, results["q6.scale"].points) == (Status.GRADED, 1)


def test_an_item_may_name_its_part() -> None:
    rubric = parse_rubric("""
slug: quiz2
title: Parts named
questions:
  - id: Q1
    items:
      - {id: q1.first, points: 1, grader: choice,
         config: {choices: [A, B], correct: A, subpart: b}}
      - {id: q1.second, points: 1, grader: choice,
         config: {choices: [A, B], correct: B, subpart: a}}
""", "quiz2.yaml")
    results = _grade(rubric, "## Q1\n(a) B\n(b) A\n")
    assert [results[i].points for i in ("q1.first", "q1.second")] == [1, 1]
