"""The rubric beside an answer (staff pages only): the item's title and points, its points
breakdown when the rubric has one (a written item's elements, partial levels and capping
contradictions; a numeric item's known mistakes, carried-forward and rounding credit) and the
reference answer (the author's solution, else what the grader's config expects). Everything
from the rubric goes through `e`."""

from __future__ import annotations

from decimal import Decimal

from pydantic import ValidationError

from app.web.markup import e, pts
from graders.disclosure import solution_text
from graders.numeric.config import NumericConfig
from graders.rubric import RubricItem
from graders.written.config import AnyOf, Condition, WrittenConfig

SHOWN = 30  # elements, levels or contradictions listed


def _condition(condition: Condition, labels: dict[str, str]) -> str:
    if isinstance(condition, AnyOf):
        named = ", ".join(e(labels.get(i, i)) for i in condition.of)
        return f"any {condition.any} of ({named})"
    return e(labels.get(condition, condition))


def _written(config: WrittenConfig, full: Decimal) -> str:
    labels = {el.id: el.label or el.statement or el.id for el in config.elements}
    parts: list[str] = []
    if config.elements:
        listed = "".join(
            f"<li><code>{e(el.id)}</code> {e(labels[el.id])}</li>"
            for el in config.elements[:SHOWN]
        )
        needed = " and ".join(_condition(c, labels) for c in config.required[:SHOWN])
        parts.append(f"<p>Full {pts(full)} points for: {needed}</p><ul class='elements'>"
                     f"{listed}</ul>")
    if config.partial:
        levels = "".join(
            f"<li><b>{pts(level.points)}</b> when "
            + " and ".join(_condition(c, labels) for c in level.when)
            + (f" <span class='muted'>({e(level.feedback)})</span>" if level.feedback else "")
            + "</li>"
            for level in config.partial[:SHOWN]
        )
        parts.append(f"<p>Partial levels</p><ul class='levels'>{levels}</ul>")
    if config.contradictions:
        capped = "".join(
            f"<li>at most <b>{pts(c.points)}</b> when it says: {e(c.feedback)}</li>"
            for c in config.contradictions[:SHOWN]
        )
        parts.append(f"<p>Known wrong statements</p><ul class='caps'>{capped}</ul>")
    return "".join(parts)


def _numeric(config: NumericConfig, full: Decimal) -> str:
    levels = [
        f"<li><b>{pts(m.points)}</b> for {e(m.value)}: {e(m.feedback)}</li>"
        for m in config.known_mistakes[:SHOWN]
    ]
    if config.carry_forward is not None:
        levels.append(f"<li><b>{pts(config.carry_forward.points)}</b> for a value computed "
                      f"correctly from the student's own {e(config.carry_forward.from_item)}</li>")
    if config.rounding is not None:
        levels.append(f"<li>{e(config.rounding.credit * 100)}% of the points for the value "
                      "rounded more coarsely than asked</li>")
    if not levels:
        return ""
    return (f"<p>Full {pts(full)} points for the expected value; partial credit</p>"
            f"<ul class='levels'>{''.join(levels)}</ul>")


def _breakdown(item: RubricItem) -> str:
    """A written item's elements and levels, a numeric item's partial credit (else none)."""
    try:
        if item.grader == "written":
            return _written(WrittenConfig.model_validate(item.config), item.points)
        if item.grader == "numeric":
            return _numeric(NumericConfig.model_validate(item.config), item.points)
    except ValidationError:  # a stored rubric the grader refused: nothing to break down
        return ""
    return ""


def rubric_panel(item: RubricItem | None) -> str:
    """The panel, or a line saying the current rubric has no such item."""
    if item is None:
        return ("<div class='panel' id='rubric'><h2>Rubric</h2><p class='muted'>The current "
                "rubric has no such item.</p></div>")
    reference = solution_text(item)
    breakdown = _breakdown(item)
    return (
        "<div class='panel' id='rubric'><h2>Rubric</h2>"
        f"<p><b id='item-title'>{e(item.title or item.id)}</b> · "
        f"<span id='item-points'>{pts(item.points)} points</span> · {e(item.grader)}</p>"
        + (f"<div id='breakdown'>{breakdown}</div>" if breakdown else "")
        + ("<p class='muted'>Reference (staff only)</p>"
           f"<div class='doc staff' id='reference'>{e(reference)}</div>" if reference else "")
        + "</div>"
    )
