"""Cohorts built while the table is graded (graders/written/table_cohorts.py) are those of
`build_cohorts`, and a table graded that way gets the results of building them all first."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import graders.written.table as table_module
import graders.written.table_cohorts as cohorts_module
from graders.context import GradingResources
from graders.embedding import SentenceEmbedder
from graders.rubric import LoadedRubric, parse_rubric
from graders.written.cohort import COHORT_KEY, Cohort, build_cohorts
from graders.written.grader import EMBEDDER_KEY
from graders.written.settings import WrittenSettings
from graders.written.table import TableGrader, TableRow
from graders.written.table_cohorts import CohortPlan
from tests.graders.written.quiz import HEADS, ORDER, STACK, quiz

QUESTIONS = ["heads", "order", "stack"]
RUBRIC = quiz(STACK, HEADS, ORDER)
ANSWERS = [
    "Different heads look at different positions at the same time.",
    "Each head can learn its own relation between tokens. They run in parallel.",
    "Heads are not parallel; they attend to the same position.",
    "",
    "Because of the softmax.",
    "Attention is a set operation, so word order would be lost.",
    "Positions are added to the embeddings. Otherwise the order is unknown.",
    "It does not need it.",
    "Several heads let the model attend to several things at once.",
    "stack",
    "Last in, first out.",
]



@pytest.fixture(scope="module")
def loaded() -> LoadedRubric:
    return parse_rubric(json.dumps(RUBRIC))  # JSON is YAML


_pairs = st.lists(st.tuples(st.sampled_from(QUESTIONS), st.sampled_from(ANSWERS)),
                  min_size=1, max_size=40)


def _state(cohort: Cohort, answers: list[str], embedder: SentenceEmbedder
           ) -> tuple[object, ...]:
    vectors = embedder.embed([a for a in answers if a.strip()] or ["x"])
    return (cohort.size, cohort.coherence,
            tuple(str(cohort.features(a, v)) for a, v in zip(answers, vectors, strict=False)))


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(_pairs, st.integers(1, 7), st.lists(st.sampled_from(QUESTIONS), max_size=4))
def test_the_plan_builds_the_cohorts_of_build_cohorts(
        embedder: SentenceEmbedder, monkeypatch: pytest.MonkeyPatch,
        pairs: list[tuple[str, str]], chunk: int, asked: list[str]) -> None:
    monkeypatch.setattr(cohorts_module, "CHUNK", chunk)
    settings_ = WrittenSettings.from_options({})
    expected = build_cohorts(embedder, pairs, settings_, batch=chunk)
    published: dict[str, Cohort] = {}
    plan = CohortPlan(embedder, settings_, published)
    plan.start((row, qid, text) for row, (qid, text) in enumerate(pairs))
    for qid in asked:  # questions made whole on their own, in any order, then the rest
        plan.ready(qid)
        if any(q == qid for q, _ in pairs):
            assert qid in published
    built = plan.finish()
    assert published == built and set(built) == set(expected)
    for qid, cohort in built.items():
        answers = [text for q, text in pairs if q == qid]
        assert _state(cohort, answers, embedder) == _state(expected[qid], answers, embedder)


def test_a_cohort_is_published_only_when_whole(embedder: SentenceEmbedder,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cohorts_module, "CHUNK", 2)
    published: dict[str, Cohort] = {}
    plan = CohortPlan(embedder, WrittenSettings.from_options({}), published)
    triples = [(0, "heads", ANSWERS[0]), (1, "order", ANSWERS[5]), (2, "heads", ANSWERS[1]),
               (3, "order", ANSWERS[6]), (4, "heads", ANSWERS[8])]
    plan.start(triples)
    assert published == {}
    plan.ready("order")  # its last answer is in the second chunk: "heads" has one more
    assert set(published) == {"order"} and published["order"].size == 2
    plan.ready("heads")
    assert published["heads"].size == 3


@settings(max_examples=15, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(_pairs, st.sampled_from([1, 3, 8]), st.sampled_from([2, 5, 512]))
def test_grading_while_cohorts_are_built_gives_the_results_of_building_them_first(
        loaded: LoadedRubric, embedder: SentenceEmbedder, monkeypatch: pytest.MonkeyPatch,
        pairs: list[tuple[str, str]], batch_rows: int, chunk: int) -> None:
    monkeypatch.setattr(table_module, "BATCH_ROWS", batch_rows)
    monkeypatch.setattr(cohorts_module, "CHUNK", chunk)
    rows = [TableRow(f"s{i}", q, a) for i, (q, a) in enumerate(pairs)]

    def grade(start: bool) -> list[object]:
        resources = GradingResources(options={}, _shared={EMBEDDER_KEY: embedder})
        grader = TableGrader(loaded, resources)
        if start:
            grader.start_cohorts(rows)
        else:
            grader.gather_cohorts(rows)
        results = list(grader.grade(rows))
        cohorts: dict[str, Cohort] = resources.shared(COHORT_KEY, dict)
        assert set(cohorts) == {q for q, a in pairs if q != "stack"}  # every cohort whole
        return list(results)

    assert grade(start=True) == grade(start=False)
