"""A stored run re-scored without the database or the upload (graders.cache.rescore) and
settled from its stored totals (graders.cache.settle) reads as grading the document afresh
under the edited rubric reads: the same results, totals, status and recorded keys. And a
regrade's batches (`plan.tapered`) keep every submission, in order."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from decimal import Decimal
from typing import Any, NamedTuple

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.cache import CACHE_KEY, MemoryStore, ResultCache
from graders.cache.codecs import encode_parsed
from graders.cache.keys import location_key
from graders.cache.plan import TAPER, tapered
from graders.cache.rescore import Rescorer, StoredRun
from graders.cache.runs import run_keys
from graders.cache.settle import settle
from graders.context import GradingResources
from graders.documents import read_submission
from graders.engine import GradingOutcome, grade_submission
from graders.results import ItemResult
from graders.rubric import LoadedRubric
from tests.graders.test_cache_runs import (
    BASE,
    DOCUMENTS,
    OPTIONS,
    _loaded,
    halves,
    numeric_edited,
    texts,
)

NAME, TYPE = "s.json", "application/json"


class Row(NamedTuple):
    points: Decimal
    max_points: Decimal
    status: str


@pytest.fixture(scope="module")
def cache() -> ResultCache:
    return ResultCache(MemoryStore())


@pytest.fixture(scope="module")
def resources(cache: ResultCache) -> Iterator[GradingResources]:
    found = GradingResources(options=dict(OPTIONS))
    found.shared(CACHE_KEY, lambda: cache)
    yield found
    found.close()


def _graded(loaded: LoadedRubric, raw: bytes, resources: GradingResources,
            cache: ResultCache) -> tuple[dict[str, Any], tuple[ItemResult, ...]]:
    """What a grading process records and stores for the document (app.grading.worker)."""
    cache.take_keys()
    parsed = read_submission(raw, NAME, TYPE, loaded.rubric)
    location = location_key(loaded, raw, NAME, TYPE)
    cache.save(location, encode_parsed(parsed))
    outcome = grade_submission(loaded, parsed, resources)
    return (run_keys(loaded, parsed, location, len(parsed.answers), cache.take_keys()),
            outcome.items)


@settings(max_examples=10, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(document=st.integers(0, len(DOCUMENTS) - 1),
       item_points=st.lists(halves, min_size=3, max_size=3), mistake_points=halves,
       feedback=texts)
def test_a_run_rescored_and_settled_reads_as_grading_afresh(
    resources: GradingResources, cache: ResultCache, document: int,
    item_points: list[Decimal], mistake_points: Decimal, feedback: str,
) -> None:
    raw = json.dumps({"student_id": "s", "answers": DOCUMENTS[document]}).encode()
    base = _loaded(BASE)
    keys, old = _graded(base, raw, resources, cache)
    before = GradingOutcome(base.content_hash, old)
    run = StoredRun(1, 10, "s", hashlib.sha256(raw).hexdigest(), NAME, TYPE, None, 5,
                    before.total, before.max_points, json.dumps(keys))
    rows = {r.item_id: Row(r.points, r.max_points, r.status.value) for r in old}
    for loaded in (base, _loaded(numeric_edited(item_points, mistake_points, feedback))):
        rescorer = Rescorer(loaded, OPTIONS, cache)
        assert rescorer.untried([1], {1: run}, {5: base}.get) == set()
        done = rescorer.rescore(run)
        assert done is not None
        new_keys, new = _graded(loaded, raw, resources, cache)
        assert json.loads(done.keys) == new_keys
        now = {r.item_id: r for r in old} | done.recomputed
        assert [now[r.item_id].model_dump() for r in new] == [r.model_dump() for r in new]
        settled = settle(run.total, run.max_points, rows, done.recomputed, {},
                         rescorer.positions)
        after = GradingOutcome(loaded.content_hash, new)
        assert settled is not None
        assert (settled.status, settled.total, settled.max_points) == (
            after.status.value, after.total, after.max_points)
        moved = {m.item_id for m in settled.moved}
        assert moved == {r.item_id for r, o in zip(new, old, strict=True)
                         if (r.points, r.status) != (o.points, o.status)}
        if loaded is base:  # unedited: every stored score is kept, the keys as stored
            assert not done.recomputed and done.keys == run.keys_text and not settled.changed


def test_a_run_whose_rubric_version_cannot_be_read_is_left_untried(
        cache: ResultCache) -> None:
    rescorer = Rescorer(_loaded(BASE), OPTIONS, cache)
    run = StoredRun(1, 10, None, "0" * 64, NAME, TYPE, None, 5, Decimal(0), Decimal(1),
                    json.dumps({"location": "location:x", "answers": 0, "groups": {}}))

    def unreadable(version: int) -> LoadedRubric | None:
        raise ValueError("an old rubric this code cannot read")

    assert rescorer.untried([1, 2], {1: run}, unreadable) == {1, 2}  # 2: no stored run
    assert (rescorer.stats.sent, rescorer.stats.sent_untried) == (2, 2)


@given(st.integers(0, 40), st.integers(1, 12), st.integers(1, 4), st.integers(0, 11))
def test_tapered_batches_keep_every_submission_in_order_and_end_small(
    count: int, full: int, workers: int, short: int
) -> None:
    ids = list(range(100, 100 + count * full + short))
    chunks = [ids[at : at + full] for at in range(0, len(ids), full)]
    batches = tapered(chunks, workers)
    assert [sid for batch in batches for sid in batch] == ids
    sizes = [len(batch) for batch in batches]
    assert all(0 < size <= full for size in sizes)
    assert sizes == sorted(sizes, reverse=True)  # full ones first, then smaller
    largest = max((len(chunk) for chunk in chunks), default=0)  # < full when count is 0
    least = max(1, largest // TAPER)
    assert all(size >= least for size in sizes[:-1])
    if full > 1 and len(ids) > 2 * workers * full:  # the last ones can be smaller
        assert sizes[0] == full and sizes[-1] < full
