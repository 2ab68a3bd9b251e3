"""The question copied into the answer (whole, one of its sentences, in lower case), alone or
above a non-answer, once earned what the prompt's own words matched ("Why is a stack of linear
layers still linear?" was a2.collapse's full credit); now no written item credits it. Above the
item's reference answer the copy changes nothing: the points are the reference's alone."""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.results import Status
from graders.rubric import BUNDLED_RUBRICS, load_rubric
from tests.graders.written.conftest import Grade

RUBRIC = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric
QUESTIONS = [q for q in RUBRIC.questions if q.id.startswith("A")]
# (question, a copy of its prompt): the whole prompt and each of its sentences
COPIES = [(q.id, copy) for q in QUESTIONS
          for copy in (q.prompt, *(s for s in re.split(r"(?<=[?.])\s+", q.prompt) if s))]
REFERENCES = [(q.id, r) for q in QUESTIONS for i in q.items for r in i.config["reference"]]
FILLERS = ("", "I do not know.", "Not sure.", "See the lecture notes.", "Skipped.")
QUIET = settings(deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _as_copied(copy: str, lower: bool) -> str:
    return copy.lower() if lower else copy


@settings(QUIET, max_examples=12)
@given(st.sampled_from(COPIES), st.booleans(), st.sampled_from(FILLERS))
def test_the_copied_question_credits_nothing(grade: Grade, copied: tuple[str, str], lower: bool,
                                             filler: str) -> None:
    question, copy = copied
    text = f"{_as_copied(copy, lower)}\n{filler}".strip()
    for result in grade(question, text):
        assert result.points == 0 or result.status is Status.NEEDS_REVIEW, (text, result)


@settings(QUIET, max_examples=10)
@given(st.sampled_from(REFERENCES), st.integers(0, 50), st.booleans())
def test_the_copied_question_above_an_answer_changes_nothing(
        grade: Grade, answered: tuple[str, str], which: int, lower: bool) -> None:
    question, reference = answered
    copies = [c for q, c in COPIES if q == question]
    copy = _as_copied(copies[which % len(copies)], lower)
    alone = {r.item_id: r.points for r in grade(question, reference)}
    below = {r.item_id: r.points for r in grade(question, f"{copy}\n{reference}")}
    assert below == alone, (copy, reference)
