"""A declared handout edition is part of what the result cache's keys name: the same bytes
declared for two editions never share a located submission, nor an unanswered question's
results; an undeclared upload's keys are what they were."""

from __future__ import annotations

import hashlib
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.cache import CACHE_KEY, MemoryStore, ResultCache
from graders.cache.keys import (
    location_key,
    location_key_for,
    location_key_head,
    location_key_of,
    location_part,
    missing_basis,
    submission_digest,
)
from graders.cache.runs import MISSING, RunKeys, run_keys
from graders.context import GradingResources
from graders.documents import read_submission
from graders.engine import grade_submission
from tests.graders.documents.test_editions import EDITIONS, _rubric

LOADED = _rubric([[], ["2021"], ["2022"]], [2, 1, 1])
RAW = json.dumps({"answers": {"q1": "10", "q2": "20", "q3": "30"}}).encode()
editions = st.one_of(st.none(), st.sampled_from(EDITIONS), st.text(min_size=1, max_size=40))


@settings(max_examples=50, deadline=None)
@given(first=editions, second=editions, name=st.sampled_from([None, "s.json", "s.md"]))
def test_the_location_key_names_the_declared_edition(
    first: str | None, second: str | None, name: str | None
) -> None:
    one = location_key(LOADED, RAW, name, None, first)
    assert (one == location_key(LOADED, RAW, name, None, second)) == (first == second)
    # the regrade's key from the stored sha256 and handout column is the grading process's
    sha = hashlib.sha256(RAW).hexdigest()
    head = location_key_head(location_part(LOADED))
    assert location_key_of(head, sha, name, None, first) == one
    assert location_key_for(location_part(LOADED), None, name, None, document=sha,
                            handout=first) == one


def test_an_undeclared_upload_keeps_its_key() -> None:
    assert location_key(LOADED, RAW, "s.json", None) == location_key(LOADED, RAW, "s.json",
                                                                      None, None)


def test_same_bytes_two_editions_share_no_located_submission_nor_missing_results() -> None:
    parsed = {e: read_submission(RAW, "s.json", None, LOADED.rubric, e) for e in (None, *EDITIONS)}
    digests = {submission_digest(p) for p in parsed.values()}
    assert len(digests) == len(parsed)
    # q2 is not asked of a 2022 student, q3 not of a 2021 student: each is recorded as an
    # unanswered question, and its basis names the edition
    resources = GradingResources(options={})
    cache = resources.shared(CACHE_KEY, lambda: ResultCache(MemoryStore()))
    recorded = {}
    for edition in EDITIONS[:2]:
        cache.take_keys()
        grade_submission(LOADED, parsed[edition], resources)
        keys = run_keys(LOADED, parsed[edition], location_key(LOADED, RAW, "s.json", None,
                                                              edition),
                        len(parsed[edition].answers), cache.take_keys())
        recorded[edition] = keys["groups"]
    assert f"q2/{MISSING}" in recorded["2022"] and f"q3/{MISSING}" in recorded["2021"]
    assert f"q2/{MISSING}" not in recorded["2021"] and f"q3/{MISSING}" not in recorded["2022"]
    basis = {e: missing_basis(parsed[e], "q2") for e in EDITIONS}
    assert len(set(basis.values())) == len(basis)
    # the fast path recomputes the same digest from the stored basis
    computed = RunKeys(LOADED, resources.options, resources)
    question = LOADED.rubric.questions[1]
    entry = recorded["2022"][f"q2/{MISSING}"]
    assert computed.missing(question, entry[1]) == entry[0]
    resources.close()
