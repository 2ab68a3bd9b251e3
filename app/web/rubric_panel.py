"""The rubric beside an answer (staff pages only): the item's title and points, its points
breakdown when its kind gives one (`Kind.breakdown`: a written item's elements, partial levels
and capping contradictions; a numeric item's known mistakes, carried-forward and rounding
credit) and the reference answer (the author's solution, else what the grader's config
expects). Everything from the rubric goes through `e`."""

from __future__ import annotations

from decimal import Decimal

from app.web.markup import e, pts
from graders.disclosure import solution_text
from graders.kind import BreakdownLine, BreakdownPart
from graders.registry import get_kind
from graders.rubric import RubricItem


def _line(line: BreakdownLine) -> str:
    parts = [f"<code>{e(line.id)}</code>" if line.id else "", e(line.before) if line.before else "",
             f"<b>{pts(line.points)}</b>" if line.points is not None else "", e(line.text)]
    note = f" <span class='muted'>({e(line.note)})</span>" if line.note else ""
    return "<li>" + " ".join(p for p in parts if p) + note + "</li>"


def _part(part: BreakdownPart, full: Decimal) -> str:
    heading = f"Full {pts(full)} points {e(part.heading)}" if part.full else e(part.heading)
    lines = "".join(_line(line) for line in part.lines)
    return f"<p>{heading}</p><ul class='{e(part.role)}'>{lines}</ul>"


def _breakdown(item: RubricItem) -> str:
    """The item's points breakdown from its kind's strategy ("" when it gives none)."""
    kind = get_kind(item.grader)
    parts = () if kind is None else kind.breakdown(item.config)
    return "".join(_part(part, item.points) for part in parts)


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
