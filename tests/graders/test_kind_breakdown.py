"""Each kind's points breakdown (`Kind.breakdown`, what staff read beside an answer): for every
item of the bundled rubrics, the written kind lists each element once, each partial level and
each known wrong statement; the numeric kind each known mistake; no kind breaks down a config
its grader refuses."""

from __future__ import annotations

import pytest

from graders import registry
from graders.kind import BreakdownLine, BreakdownPart
from graders.numeric.config import NumericConfig
from graders.rubric import BUNDLED_RUBRICS, RubricItem, load_rubric
from graders.written.config import WrittenConfig

SHOWN = 30  # lines listed per part
ITEMS = [item for path in sorted(BUNDLED_RUBRICS.glob("*.yaml"))
         for item in load_rubric(path).rubric.items()]


def _of(kind: str) -> list[RubricItem]:
    return [item for item in ITEMS if item.grader == kind]


def _lines(parts: tuple[BreakdownPart, ...], role: str) -> tuple[BreakdownLine, ...]:
    return next((part.lines for part in parts if part.role == role), ())


@pytest.mark.parametrize("item", _of("written"), ids=lambda item: item.id)
def test_a_written_breakdown_lists_the_elements_levels_and_caps(item: RubricItem) -> None:
    config = WrittenConfig.model_validate(item.config)
    parts = registry.kind_of("written").breakdown(item.config)
    assert [line.id for line in _lines(parts, "elements")] == [
        el.id for el in config.elements][:SHOWN]
    assert [line.points for line in _lines(parts, "levels")] == [
        level.points for level in config.partial][:SHOWN]
    assert [line.points for line in _lines(parts, "caps")] == [
        c.points for c in config.contradictions][:SHOWN]
    assert [part.full for part in parts] == [part.role == "elements" for part in parts]


@pytest.mark.parametrize("item", _of("numeric"), ids=lambda item: item.id)
def test_a_numeric_breakdown_lists_each_known_mistake(item: RubricItem) -> None:
    config = NumericConfig.model_validate(item.config)
    parts = registry.kind_of("numeric").breakdown(item.config)
    credit = (config.known_mistakes, config.carry_forward, config.rounding)
    if not any(credit):
        assert parts == ()
        return
    (part,) = parts
    assert part.full and part.role == "levels"
    mistakes = [line.points for line in part.lines[:len(config.known_mistakes)]]
    assert mistakes == [m.points for m in config.known_mistakes][:SHOWN]


@pytest.mark.parametrize("name", sorted(registry.KINDS))
def test_a_config_the_grader_refuses_has_no_breakdown(name: str) -> None:
    assert registry.kind_of(name).breakdown({"no such option": True}) == ()
