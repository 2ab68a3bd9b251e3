"""A regrade worker's per-rubric constants give exactly what the general code gives: a group's
key from the parts kept with its spec, and a numeric item's validated config and stated part
kept with the item (rather than its config's repr made again for every group graded)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.cache.groups import compose_key
from graders.cache.runs import RunKeys
from graders.context import GradingResources
from graders.documents.model import LocatedAnswer
from graders.numeric.config import NumericConfig
from graders.numeric.memo import _NOT_OBSERVED, ITEMS, NumericMemo, scoring_key, stated
from graders.rubric import BUNDLED_RUBRICS, RubricItem, load_rubric

LOADED = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml")
NUMERIC_ITEMS = [i for i in LOADED.rubric.items() if i.grader == "numeric"]
OPTIONS = {"code_input_secret": "test-secret", "result_cache_path": "unused"}
SETTINGS = settings(max_examples=100, deadline=None, database=None)


def _run_keys(options: dict[str, Any]) -> RunKeys:
    return RunKeys(LOADED, options, GradingResources(options=options))


def _specs(keys: RunKeys) -> list[Any]:
    return [spec for _, specs in keys.questions for spec in specs
            if spec.static and not spec.referenced]


@SETTINGS
@given(bases=st.lists(st.text(max_size=80), min_size=1, max_size=6),
       which=st.integers(0, 100))
def test_a_group_key_from_the_parts_kept_with_its_spec_is_the_general_key(
        bases: list[str], which: int) -> None:
    keys = _run_keys(dict(OPTIONS))
    specs = _specs(keys)
    spec = specs[which % len(specs)]
    for basis in bases * 2:  # the second round reads the parts kept with the spec
        assert keys.key(spec, basis, lambda _: {}) == compose_key(
            spec.static, basis, spec.question.id, keys.options, {}, (), spec.env)


def test_parts_kept_for_one_options_mapping_are_not_used_for_another() -> None:
    keys = _run_keys(dict(OPTIONS))
    spec = _specs(keys)[0]
    first = keys.key(spec, "basis", lambda _: {})
    keys.options = {**OPTIONS, "numeric_tolerance": "0.5"}
    second = keys.key(spec, "basis", lambda _: {})
    assert first != second
    assert second == compose_key(spec.static, "basis", spec.question.id, keys.options, {}, (),
                                 spec.env)


def _general_config(item: RubricItem) -> tuple[NumericConfig, str]:
    """What `NumericMemo.config` made for an item before anything was kept by item."""
    typed = NumericConfig.model_validate(item.config)
    return typed, repr(typed.model_dump(exclude=_NOT_OBSERVED))


@SETTINGS
@given(which=st.lists(st.integers(0, 100), min_size=1, max_size=12),
       points=st.integers(0, 40).map(lambda n: Decimal(n) / 4),
       title=st.text(max_size=10), tolerance=st.sampled_from([None, 0.0, 0.01, 0.5]))
def test_what_is_kept_with_an_item_is_what_its_config_and_key_read(
        which: list[int], points: Decimal, title: str, tolerance: float | None) -> None:
    memo = NumericMemo()
    items: list[RubricItem] = []
    for n in which:
        item = NUMERIC_ITEMS[n % len(NUMERIC_ITEMS)]
        config = dict(item.config)
        if tolerance is not None:
            config["rel_tolerance"] = tolerance
        # a copy (as calibration makes one) with other points, title or config
        items.append(item.model_copy(update={"points": points, "title": title,
                                             "config": config}) if n % 2 else item)
    answer = LocatedAnswer("B1", "d_head = 64", start=3, end=14)
    for item in items + items:
        config, told = memo.item(item)
        assert memo.config(item) == config
        assert told == stated(item) == (item.id, item.title, str(item.points),
                                        repr(item.config))
        general = _general_config(item)
        assert config[0] == general[0] and config[1] == general[1]
    told_all = [memo.item(i)[1] for i in items]
    assert scoring_key(answer, items, "B1", 0.6, [64], told_all) == scoring_key(
        answer, items, "B1", 0.6, [64])


def test_items_are_kept_by_object_not_by_id_string() -> None:
    memo = NumericMemo()
    item = NUMERIC_ITEMS[0]
    other = item.model_copy(update={"config": {**item.config, "rel_tolerance": 0.25}})
    assert memo.item(item)[1] != memo.item(other)[1]
    assert memo.config(other)[0].rel_tolerance == 0.25
    assert memo.config(item)[0] == NumericConfig.model_validate(item.config)


def test_the_items_kept_are_bounded() -> None:
    memo = NumericMemo()
    base = NUMERIC_ITEMS[0]
    copies = [base.model_copy(update={"title": f"t{n}"}) for n in range(ITEMS + 5)]
    for item in copies:
        assert memo.item(item)[1][1] == item.title
    assert len(memo._items) <= ITEMS
