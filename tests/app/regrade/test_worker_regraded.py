"""A regrade worker grades a stored numeric group's results again (`Rescorer._regraded`) rather
than reading them back from the result cache: what it grades is exactly what the cache holds
under the stored key, for every stored run of the mixed set, before and after a rubric edit."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from app.db.models import RubricVersion, Submission
from app.db.session import unit_of_work
from app.regrade.batches import fast_path, triage
from graders.cache.codecs import decode_parsed, decode_results
from graders.cache.rescore import Rescorer
from graders.results import ItemResult
from graders.rubric import parse_rubric
from tests.app.regrade.test_cache import KNOWN_MISTAKE, POINTS_AND_FEEDBACK
from tests.app.regrade.test_fast import Setup, _edited, setup  # noqa: F401 (a fixture)


def _fast(setup: Setup) -> tuple[Rescorer, dict[int, Any]]:  # noqa: F811
    with unit_of_work(setup.fast) as session:
        text = session.execute(select(RubricVersion.source_text)
                               .order_by(RubricVersion.id.desc())).scalars().first()
        ids = list(session.execute(select(Submission.id)).scalars())
        assert text is not None
    fast = fast_path(parse_rubric(text, "<test>"), None, setup.options)
    assert fast is not None
    stored, _ = triage(setup.fast, fast, ids, lambda untried: None)
    return fast, dict(stored)


def _compared(setup: Setup) -> int:  # noqa: F811
    fast, stored = _fast(setup)
    compared = 0
    for run in stored.values():
        if run.keys is None:
            continue
        doc = fast.cache.load(run.keys.location, decode_parsed)
        for name, (key, basis) in run.keys.groups.items():
            plan = fast.versions.get(run.rubric_version_id)
            spec = None if plan is None else plan.stated.get(name)
            if plan is None or spec is None or doc is None:
                continue
            regraded = fast._regraded(key, plan.keys, spec, basis, doc)
            question = spec.question.id
            read: list[ItemResult] | None = fast.cache.load(
                key, lambda p, s=spec, q=question: decode_results(p, s.items, q))
            if spec.kind != "numeric":
                assert regraded is None
                continue
            assert read is not None
            if regraded is not None:
                compared += 1
                assert regraded == read
                for mine, theirs in zip(regraded, read, strict=True):
                    assert mine.model_dump() == theirs.model_dump()
            # another answer's digest, or another key: read back, never graded
            assert fast._regraded(key, plan.keys, spec, "0" * 64, doc) is None
            assert fast._regraded("group:other", plan.keys, spec, basis, doc) is None
    return compared


def test_the_results_graded_again_are_those_the_stored_key_names(
        setup: Setup) -> None:  # noqa: F811
    assert _compared(setup) >= 5  # the numeric groups of every stored run, same rubric
    for edits in (POINTS_AND_FEEDBACK, KNOWN_MISTAKE):
        setup.edit(_edited(edits))
        assert _compared(setup) >= 5  # read with the items as the stored run's rubric had them
