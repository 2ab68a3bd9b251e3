"""`missing` promises the document has no answer. A numeric item whose value no reading finds,
in an answer holding a number that no item of the question read, goes to review with that
number shown, suggested at 0: the class is a value written in a way the reader does not know
(a label-smoothed target in words, "0.925 on the true class, 0.025 elsewhere"; a rate as
"one in forty"). An item whose question's numbers were all read for its siblings, or whose
answer has no number at all, is still `missing`."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.results import ItemResult, Status
from tests.graders.numeric.graded import grade_question

RUBRIC = """
slug: smoothing
title: Label smoothing
questions:
  - id: Q2
    items:
      - id: q2.target
        points: 2
        grader: numeric
        config: {expected: [0.925, 0.025, 0.025, 0.025], kind: vector, cues: [target, "(a)"]}
      - id: q2.loss
        points: 2
        grader: numeric
        config: {expected: 0.4, abs_tolerance: 0.01, cues: [loss, "(b)"]}
"""

IN_WORDS = [  # the target vector as students write it in words
    "0.925 on the true class, 0.1/4 = 0.025 elsewhere",
    "0.925 for the right token and 0.025 for each of the three others",
    "the true class gets 0.925; every other class 0.025",
    "1 - 0.075 = 0.925 on the correct label, the rest share 0.1 equally",
]
LOSS = ["(b) loss = 0.40", "(b) the loss is 0.4", "(b) L = 0.40 nats", "(b) cross-entropy 0.4"]


def _grade(text: str) -> dict[str, ItemResult]:
    return grade_question(RUBRIC, text)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(IN_WORDS), st.sampled_from(LOSS), st.sampled_from(["(a) target: ", "(a) "]))
def test_a_value_in_words_beside_a_read_sibling_goes_to_review(
        target: str, loss: str, marker: str) -> None:
    by_id = _grade(f"{marker}{target}.\n{loss}")
    result = by_id["q2.target"]
    assert result.status is not Status.MISSING, result.feedback
    if result.status is Status.NEEDS_REVIEW:
        assert "0.925" in result.feedback or "0.025" in result.feedback
    assert by_id["q2.loss"].status is Status.GRADED


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(LOSS), st.sampled_from(["", "(a) I did not get to this part.\n",
                                               "(a) see the notebook\n"]))
def test_an_unanswered_part_beside_a_read_sibling_is_still_missing(loss: str, before: str
                                                                   ) -> None:
    result = _grade(f"{before}{loss}")["q2.target"]
    assert result.status is Status.MISSING, result.feedback
