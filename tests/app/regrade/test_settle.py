"""`settle` (graders.cache.settle: a regrade's new status, totals and change report from the
stored run's totals and the few rows it reads, reported by `changes.change_of`) decides exactly
what the full comparison over every row decides
(`changes.diff_of` over `changes.stored_score`, the grading processes' path), for generated runs:
any statuses, points, recomputed items and overrides."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from app.db.models import Override
from app.grading.repository import DECIDING, ItemRow, Score
from app.regrade.changes import change_of, diff_of, stored_score
from graders.cache.settle import settle
from graders.results import ItemResult, Status

STATUSES = ("graded", "needs_review", "missing", "pending", "grader_error")
HALVES = st.integers(0, 8).map(lambda n: Decimal(n) / 2)


@st.composite
def runs(draw: st.DrawFn) -> tuple[list[ItemRow], dict[str, ItemResult], dict[str, Override]]:
    n = draw(st.integers(1, 7))
    old: list[ItemRow] = []
    for k in range(n):
        maximum = draw(st.sampled_from([Decimal(1), Decimal(2), Decimal(4)]))
        old.append(ItemRow(f"q{k}.a", f"q{k}", min(draw(HALVES), maximum), maximum,
                           draw(st.sampled_from(STATUSES)), 0.9, "numeric", "1"))
    recomputed: dict[str, ItemResult] = {}
    for row in draw(st.lists(st.sampled_from(old), unique_by=lambda r: r.item_id)):
        maximum = draw(st.sampled_from([row.max_points, row.max_points + 1]))
        recomputed[row.item_id] = ItemResult(
            item_id=row.item_id, question=row.question_id, points=min(draw(HALVES), maximum),
            max_points=maximum, status=Status(draw(st.sampled_from(STATUSES))),
            grader="numeric", grader_version="1")
    overrides = {row.item_id: Override(item_id=row.item_id, points=draw(HALVES))
                 for row in draw(st.lists(st.sampled_from(old), unique_by=lambda r: r.item_id))}
    # An override of an item the run does not have is ignored by both.
    if draw(st.booleans()):
        overrides["gone"] = Override(item_id="gone", points=Decimal(1))
    return old, recomputed, overrides


@settings(max_examples=400, deadline=None)
@given(runs())
def test_settle_decides_what_the_full_comparison_decides(
    case: tuple[list[ItemRow], dict[str, ItemResult], dict[str, Override]],
) -> None:
    old, recomputed, overrides = case
    new = [ItemRow(r.item_id, r.question, r.points, r.max_points, r.status.value, r.confidence,
                   r.grader, r.grader_version) if (r := recomputed.get(o.item_id)) else o
           for o in old]
    # What the stored run says of itself, and what the regrade reads of it.
    machine_old = stored_score(old, {}, "graded")
    assert machine_old.total is not None and machine_old.max_points is not None
    wanted = set(recomputed) | set(overrides)
    read = {r.item_id: Score(r.item_id, r.points, r.max_points, r.status)
            for r in old if r.item_id in wanted or r.status in DECIDING}
    positions = {r.item_id: n for n, r in enumerate(old)}
    settled = settle(machine_old.total, machine_old.max_points, read, recomputed,
                     {item: o.points for item, o in overrides.items()}, positions)
    assert settled is not None
    machine_new = stored_score(new, {}, "graded")
    assert (settled.status, settled.total, settled.max_points) == (
        machine_new.status, machine_new.total, machine_new.max_points)
    expected = diff_of(7, "s", stored_score(old, overrides, "graded"),
                       stored_score(new, overrides, "graded"))
    assert settled.changed == (expected is not None)
    assert (change_of(7, "s", settled) if settled.changed else None) == expected
    if not recomputed:
        assert expected is None


def test_rows_that_do_not_cover_a_recomputed_item_are_not_settled() -> None:
    result = ItemResult(item_id="q0.a", question="q0", points=Decimal(1),
                        max_points=Decimal(1), status=Status.GRADED, grader="numeric",
                        grader_version="1")
    assert settle(Decimal(0), Decimal(1), {}, {"q0.a": result}, {}, {"q0.a": 0}) is None
