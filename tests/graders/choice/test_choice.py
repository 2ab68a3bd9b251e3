"""The `choice` kind through its public interfaces: a rubric file parsed and a JSON upload
graded by the engine (one or several correct choices, partial credit per choice, exact match
of short strings), what it discloses, and its answers' groups."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest

from graders.answer_keys import Answer
from graders.disclosure import answer_values, solution_text
from graders.documents.submission import read_submission
from graders.engine import grade_submission
from graders.grouping import group_answers
from graders.results import ItemResult, Status
from graders.rubric import LoadedRubric, RubricError, parse_rubric

RUBRIC = """
slug: quiz
title: Attention quiz
questions:
  - id: Q1
    items:
      - id: q1.scale
        points: 2
        grader: choice
        title: Why divide the scores by sqrt(d_k)?
        config:
          choices: [A, B, C, D]
          correct: B
          credit: {C: 0.5}
  - id: Q2
    items:
      - id: q2.masks
        points: 3
        grader: choice
        config:
          choices: [A, B, C, D, E]
          correct: [A, C, E]
          select: several
          scoring: right_minus_wrong
  - id: Q3
    items:
      - id: q3.all
        points: 1
        grader: choice
        config:
          choices: [A, B, C]
          correct: [A, B]
          select: several
  - id: Q4
    items:
      - id: q4.name
        points: 1
        grader: choice
        config:
          correct: [softmax, soft-max]
"""


@pytest.fixture(scope="module")
def quiz() -> LoadedRubric:
    return parse_rubric(RUBRIC, "quiz.yaml")


def _grade(quiz: LoadedRubric, answers: dict[str, str]) -> dict[str, ItemResult]:
    raw = json.dumps({"answers": answers}).encode()
    parsed = read_submission(raw, "quiz.json", "application/json", quiz.rubric)
    return {r.item_id: r for r in grade_submission(quiz, parsed).items}


def test_one_correct_choice_case_and_spacing_do_not_matter(quiz: LoadedRubric) -> None:
    for spelled in ("B", " b ", "b."):
        result = _grade(quiz, {"q1.scale": spelled})["q1.scale"]
        assert (result.status, result.points) == (Status.GRADED, Decimal(2)), spelled
        assert result.student_feedback == "Correct."


def test_a_choice_with_partial_credit_earns_its_share(quiz: LoadedRubric) -> None:
    result = _grade(quiz, {"q1.scale": "C"})["q1.scale"]
    assert (result.status, result.points) == (Status.GRADED, Decimal(1))
    assert "B" in result.feedback  # staff see the correct choice
    assert result.student_feedback is not None and "B" not in result.student_feedback


def test_a_wrong_choice_earns_nothing_and_is_graded(quiz: LoadedRubric) -> None:
    result = _grade(quiz, {"q1.scale": "D"})["q1.scale"]
    assert (result.status, result.points) == (Status.GRADED, Decimal(0))


def test_an_answer_that_is_no_choice_goes_to_review(quiz: LoadedRubric) -> None:
    result = _grade(quiz, {"q1.scale": "B or maybe C"})["q1.scale"]
    assert result.status is Status.NEEDS_REVIEW and result.points == 0
    assert "none of the choices" in result.feedback


def test_several_correct_right_minus_wrong(quiz: LoadedRubric) -> None:
    scored = {text: _grade(quiz, {"q2.masks": text})["q2.masks"].points
              for text in ("A, C, E", "e; a\nc", "A, C", "A, C, B", "A, B, D", "A and C and E")}
    assert scored == {"A, C, E": Decimal(3), "e; a\nc": Decimal(3), "A, C": Decimal(2),
                      "A, C, B": Decimal(1), "A, B, D": Decimal(0),
                      "A and C and E": Decimal(3)}


def test_several_correct_all_or_nothing(quiz: LoadedRubric) -> None:
    assert _grade(quiz, {"q3.all": "B, A"})["q3.all"].points == 1
    assert _grade(quiz, {"q3.all": "A"})["q3.all"].points == 0
    assert _grade(quiz, {"q3.all": "A, B, C"})["q3.all"].points == 0


def test_exact_match_accepts_each_listed_spelling_only(quiz: LoadedRubric) -> None:
    assert _grade(quiz, {"q4.name": "SoftMax"})["q4.name"].points == 1
    assert _grade(quiz, {"q4.name": "soft-max"})["q4.name"].points == 1
    wrong = _grade(quiz, {"q4.name": "sigmoid"})["q4.name"]
    assert (wrong.status, wrong.points) == (Status.GRADED, Decimal(0))


def test_hostile_answers_are_bounded(quiz: LoadedRubric) -> None:
    long = _grade(quiz, {"q2.masks": ",".join(["A"] * 50_000), "q4.name": "x" * 100_000})
    assert long["q2.masks"].points == Decimal(1)  # one selection, A, however often repeated
    assert long["q4.name"].status is Status.GRADED and long["q4.name"].points == 0
    many = _grade(quiz, {"q2.masks": ",".join(f"c{n}" for n in range(500))})["q2.masks"]
    assert many.status is Status.NEEDS_REVIEW and many.points == 0


@pytest.mark.parametrize(("config", "problem"), [
    ("{choices: [A, B], correct: C}", "`correct` names ['C'] that `choices` does not offer"),
    ("{choices: [A, B], correct: A, credit: {B: 1.5}}", "must be a share between 0 and 1"),
    ("{choices: [A, B], correct: A, credit: {A: 0.5}}", "a correct choice"),
    ("{correct: [A, B], select: several, credit: {C: 0.5}}", "`credit` is for one selection"),
    ("{correct: A, scoring: right_minus_wrong}", "`scoring` is for `select: several`"),
    ("{correct: []}", "at least 1 item"),
    ("{correct: A, colour: red}", "Extra inputs are not permitted"),
])
def test_a_wrong_config_is_a_rubric_error(config: str, problem: str) -> None:
    text = f"""
slug: bad
title: Bad
questions:
  - id: Q1
    items:
      - {{id: q1.a, points: 1, grader: choice, config: {config}}}
"""
    with pytest.raises(RubricError) as raised:
        parse_rubric(text, "bad.yaml")
    assert any(problem in p for p in raised.value.problems), raised.value.problems


def test_the_solution_is_the_correct_choices_and_a_public_title_must_not_state_it(
    quiz: LoadedRubric,
) -> None:
    items = {i.id: i for i in quiz.rubric.items()}
    assert solution_text(items["q1.scale"]) == "B"
    assert solution_text(items["q2.masks"]) == "A, C, E"
    assert solution_text(items["q4.name"]) == "softmax / soft-max"
    assert answer_values(items["q4.name"]) == ["softmax", "soft-max"]
    assert answer_values(items["q1.scale"]) == []  # "B" is in too many titles to mean the answer
    text = """
slug: leak
title: Leak
questions:
  - id: Q1
    items:
      - {id: q1.a, points: 1, grader: choice, title: "The softmax", title_public: true,
         config: {correct: softmax}}
"""
    with pytest.raises(RubricError, match="states the answer value softmax"):
        parse_rubric(text, "leak.yaml")


def test_answers_group_by_the_selections_read(quiz: LoadedRubric) -> None:
    replies = ["A, C, E", "e, c, a", "a;c;e", "A, C", "", "A, C"]
    answers: list[Answer] = []
    for member, text in enumerate(replies, start=1):
        result = _grade(quiz, {"q2.masks": text})["q2.masks"]
        evidence = tuple(e.model_dump() for e in result.evidence)
        answers.append(Answer(member, f"doc{member}", text, evidence, result.feedback))
    item = next(i for i in quiz.rubric.items() if i.id == "q2.masks")
    groups = group_answers("choice", item.config, answers)
    by_members = {g.members: (g.method, g.signature) for g in groups}
    assert by_members == {(1, 2, 3): ("choice", "a; c; e"), (4, 6): ("choice", "a; c"),
                          (5,): ("missing", "(no answer)")}
