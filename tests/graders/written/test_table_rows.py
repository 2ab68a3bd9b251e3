"""Whole rows' results kept between runs (graders/written/table_rows.py): a row read from the
store is the row graded anew, whatever table filled the store before."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from graders.context import GradingResources
from graders.embedding import SentenceEmbedder
from graders.rubric import LoadedRubric, parse_rubric
from graders.written.grader import EMBEDDER_KEY
from graders.written.table import RowResult, TableGrader, TableRow
from graders.written.table_rows import decode_group, encode_group
from tests.graders.written.quiz import ANSWERS as QUIZ_ANSWERS
from tests.graders.written.quiz import HEADS, STACK, quiz

RUBRIC = quiz(STACK, HEADS, labelled=True)
ANSWERS = [
    *QUIZ_ANSWERS,
    "Because of the softmax.",
    "Several heads let the model attend to several things at once.",
    "More heads means more parameters, so the model is bigger.",
    "One head would average everything together; many heads keep relations apart.",
    "Heads split the embedding into parts that each attend differently.",
]
QUESTIONS = ["stack", "Q1", "heads", "nope"]


class MemoryStore:
    def __init__(self) -> None:
        self.groups: dict[str, bytes] = {}

    def get(self, group: str) -> bytes | None:
        return self.groups.get(group)

    def put(self, group: str, payload: bytes) -> None:
        self.groups[group] = payload



@pytest.fixture(scope="module")
def loaded() -> LoadedRubric:
    return parse_rubric(json.dumps(RUBRIC))  # JSON is YAML


def _run(loaded: LoadedRubric, embedder: SentenceEmbedder, rows: list[TableRow],
         store: MemoryStore | None, cohort: bool) -> tuple[list[RowResult], int | None]:
    """As the CLI does: learn, look in the store, build the cohorts only if a row is missing."""
    # Fresh resources (the cohorts live there), the model shared: it loads once.
    resources = GradingResources(options={}, _shared={EMBEDDER_KEY: embedder})
    grader = TableGrader(loaded, resources)
    graded = [r for r in rows if r.points is not None]
    if graded:
        grader.learn(graded)
    missing = grader.use_store(store, rows, cohort) if store is not None else None
    if cohort and missing != 0:
        grader.gather_cohorts(rows)
    results = list(grader.grade(rows))
    grader.save()
    return results, missing


rows_strategy = st.lists(
    st.builds(TableRow, student=st.just("s"), question=st.sampled_from(QUESTIONS),
              answer=st.sampled_from(ANSWERS),
              points=st.sampled_from([None, None, None, Decimal(1), Decimal(5)]),
              unreadable=st.sampled_from([None, None, None, None, "data row 1 cannot be read"])),
    min_size=1, max_size=16)


# One answer of the cohort question changed (a cohort of at least five distinct answers, the
# smallest used): every answer of that question is graded again.
@example([TableRow(f"s{i}", "heads", ANSWERS[i]) for i in (2, 3, 4, 7, 8, 9)],
         [TableRow(f"s{i}", "heads", ANSWERS[i]) for i in (2, 3, 4, 7, 8, 10)], True)
@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(rows_strategy, rows_strategy, st.booleans())
def test_a_stored_row_is_the_row_graded_anew(
        loaded: LoadedRubric, embedder: SentenceEmbedder, first: list[TableRow],
        second: list[TableRow], cohort: bool) -> None:
    store = MemoryStore()
    _run(loaded, embedder, first, store, cohort)
    plain, _ = _run(loaded, embedder, second, None, cohort)
    after_first, _ = _run(loaded, embedder, second, store, cohort)
    assert after_first == plain
    again, missing = _run(loaded, embedder, second, store, cohort)
    assert missing == 0  # every graded row of the table is now stored
    assert again == plain


@pytest.mark.parametrize("cohort", [True, False])
def test_a_changed_rubric_or_cohort_is_a_miss(loaded: LoadedRubric, embedder: SentenceEmbedder,
                                              cohort: bool) -> None:
    rows = [TableRow("a", "heads", ANSWERS[2]), TableRow("b", "heads", ANSWERS[3]),
            TableRow("c", "stack", ANSWERS[0])]
    store = MemoryStore()
    _, missing = _run(loaded, embedder, rows, store, cohort)
    assert missing == 3
    assert _run(loaded, embedder, rows, store, cohort)[1] == 0
    changed = [*rows[:1], TableRow("b", "heads", ANSWERS[4]), rows[2]]
    # The cohort question's two rows miss with the cohort (its cohort changed), one without.
    assert _run(loaded, embedder, changed, store, cohort)[1] == (2 if cohort else 1)
    edited = json.loads(json.dumps(RUBRIC))
    edited["questions"][1]["items"][0]["config"]["reference"] = ["Heads work in parallel."]
    # Any edit of the rubric file (its content hash is in every key) misses every row.
    assert _run(parse_rubric(json.dumps(edited)), embedder, rows, store, cohort)[1] == 3


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_a_foreign_group_is_a_miss_never_an_error(payload: bytes) -> None:
    loaded = parse_rubric(json.dumps(RUBRIC))
    part = TableGrader(loaded, GradingResources(options={})).parts["heads"]
    assert decode_group(payload, part) == {}


def test_a_group_for_other_items_is_refused(loaded: LoadedRubric) -> None:
    grader = TableGrader(loaded, GradingResources(options={}))
    results = list(grader.grade([TableRow("a", "stack", "Last in, first out.")]))
    payload = encode_group({"x": results[0].items})
    assert decode_group(payload, grader.parts["stack"]) == {"x": results[0].items}
    assert decode_group(payload, grader.parts["heads"]) == {}
