"""A regrade's plan (graders.cache.plan: plan_version, plan_run) from rubric changes alone,
and stored run keys read into their typed form: no database, no cache, no grading."""

from __future__ import annotations

import json

import pytest

from graders.cache.plan import (
    GroupKey,
    Step,
    StoredKeys,
    keys_text,
    parse_keys,
    plan_run,
    plan_version,
)
from graders.cache.runs import RunKeys
from graders.context import GradingResources
from graders.rubric import BUNDLED_RUBRICS, LoadedRubric, parse_rubric
from tests.app.regrade.test_cache import KNOWN_MISTAKE, POINTS_AND_FEEDBACK, RUBRIC

SOURCE = str(BUNDLED_RUBRICS / "transformer-basics.yaml")
OPTIONS = {"code_input_secret": "test-secret"}


def _loaded(edits: tuple[tuple[str, str], ...] = ()) -> LoadedRubric:
    text = RUBRIC
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    return parse_rubric(text, SOURCE)


def _keys(loaded: LoadedRubric) -> RunKeys:
    return RunKeys(loaded, OPTIONS, GradingResources(options=dict(OPTIONS)))


def _run(groups: dict[str, list[str]] | None) -> StoredKeys | None:
    return None if groups is None else parse_keys(
        {"location": "loc", "answers": 3, "groups": groups})


def test_an_unchanged_rubric_reruns_nothing() -> None:
    new = _keys(_loaded())
    plan = plan_version(new, _loaded(), GradingResources(options=dict(OPTIONS)))
    assert plan is not None and plan.rerun == frozenset() and plan.keys is new
    assert plan_run(_run({"B1/numeric": ["k", "b"]}), plan) is Step.IN_PLACE


@pytest.mark.parametrize("edits", [POINTS_AND_FEEDBACK, KNOWN_MISTAKE])
def test_a_numeric_edit_is_rescored_in_place(edits: tuple[tuple[str, str], ...]) -> None:
    new = _keys(_loaded(edits))
    plan = plan_version(new, _loaded(), GradingResources(options=dict(OPTIONS)))
    assert plan is not None and plan.keys is not new  # read back with the old groups
    assert plan.rerun == frozenset()  # numeric groups are re-scored in place
    assert plan_run(_run({"B1/numeric": ["k", "b"]}), plan) is Step.IN_PLACE


def test_a_changed_code_group_reruns_only_the_runs_that_answered_it() -> None:
    new = _keys(_loaded((("points: 1\n        grader: code", "points: 3\n        grader: code"),)))
    plan = plan_version(new, _loaded(), GradingResources(options=dict(OPTIONS)))
    assert plan is not None and "B3/code" in plan.rerun
    assert not [g for g in plan.rerun if g.endswith("/numeric")]  # those stay in place
    assert plan_run(_run({"B3/code": ["k", "b"], "B1/numeric": ["k", "b"]}), plan) is Step.RERUN
    assert plan_run(_run({"B1/numeric": ["k", "b"]}), plan) is Step.IN_PLACE


def test_runs_that_cannot_line_up_are_rerun() -> None:
    renamed = _loaded((("id: b3.scaling", "id: b3.scaled"),))
    new = _keys(renamed)
    assert plan_version(new, _loaded(), GradingResources(options=dict(OPTIONS))) is None
    assert plan_run(_run({"B1/numeric": ["k", "b"]}), None) is Step.RERUN
    plan = plan_version(_keys(_loaded()), _loaded(), GradingResources(options=dict(OPTIONS)))
    assert plan_run(_run(None), plan) is Step.RERUN  # no stored run, or no recorded keys


@pytest.mark.parametrize("value", [
    None, [], {"location": "l", "answers": 1}, {"location": 1, "answers": 1, "groups": {}},
    {"location": "l", "answers": "1", "groups": {}},
    {"location": "l", "answers": 1, "groups": {"B1/numeric": ["k"]}},
    {"location": "l", "answers": 1, "groups": {"B1/numeric": ["k", 2]}},
])
def test_keys_not_in_the_stored_form_are_none(value: object) -> None:
    assert parse_keys(value) is None


def test_new_keys_replace_only_the_changed_key_in_the_stored_text() -> None:
    stored = json.dumps({"location": "loc", "answers": 3, "groups": {
        "B1/numeric": ["group:aa", "b1"], "B2/numeric": ["group:bb", "b2"]}})
    keys = parse_keys(json.loads(stored))
    assert keys == StoredKeys("loc", 3, {"B1/numeric": GroupKey("group:aa", "b1"),
                                         "B2/numeric": GroupKey("group:bb", "b2")})
    text = keys_text(stored, keys, {"B1/numeric": GroupKey("group:aa", "b1"),
                                    "B2/numeric": GroupKey("group:cc", "b2")})
    assert text == stored.replace("group:bb", "group:cc")
    fewer = keys_text(stored, keys, {"B1/numeric": GroupKey("group:aa", "b1")})
    assert json.loads(fewer) == {"location": "loc", "answers": 3,
                                 "groups": {"B1/numeric": ["group:aa", "b1"]}}
