"""A run re-scored in place, settled from its stored totals and the few rows read of it: only
the recomputed items can differ, the rest of the run is the stored one. The status and total
follow the one rule every run does (graders.totals); an overridden item counts its override's
points and reads as graded. No database: the caller reads the rows and reports the change
(app.regrade.changes)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import NamedTuple, Protocol

from graders.results import ItemResult, Status
from graders.totals import counted, run_status

GRADED = Status.GRADED.value


class StoredScore(Protocol):
    """An item's stored row, as much of it as settling reads."""

    @property
    def points(self) -> Decimal: ...
    @property
    def max_points(self) -> Decimal: ...
    @property
    def status(self) -> str: ...


class Shown(NamedTuple):
    """Points and a status: an item's, or a run's total and status."""

    points: Decimal
    status: str


@dataclass(frozen=True, slots=True)
class Moved:
    """An item whose shown points or status the re-score changes (overrides applied)."""

    item_id: str
    before: Shown
    after: Shown


@dataclass(frozen=True, slots=True)
class Settled:
    status: str  # the machine's run status (no overrides), as stored
    total: Decimal
    max_points: Decimal
    before: Shown  # the run's total and status, overrides applied, before and after
    after: Shown
    moved: tuple[Moved, ...]  # in rubric order

    @property
    def changed(self) -> bool:
        return bool(self.moved) or self.before != self.after


def settle(total: Decimal, max_points: Decimal, rows: Mapping[str, StoredScore],
           recomputed: Mapping[str, ItemResult], overrides: Mapping[str, Decimal],
           positions: Mapping[str, int]) -> Settled | None:
    """The stored totals with each recomputed item's counted points replaced, the status from
    the rows that decide it (all of them are in `rows`); `overrides`: points by item. None when
    `rows` do not cover the recomputed items."""
    if any(item not in rows for item in recomputed):
        return None
    before = {item: Shown(row.points, row.status) for item, row in rows.items()}
    after = dict(before)
    new_total, new_max = total, max_points
    for item, result in recomputed.items():
        old = rows[item]
        after[item] = Shown(result.points, result.status.value)
        new_total += counted(result.points, result.status.value) - counted(old.points, old.status)
        new_max += result.max_points - old.max_points
    machine = run_status(shown.status for shown in after.values())
    overridden = {item: points for item, points in overrides.items() if item in rows}
    if not recomputed:
        unchanged = _shown(before, total, overridden)
        return Settled(machine, new_total, new_max, unchanged, unchanged, ())
    now = Shown(new_total, machine) if not overridden else _shown(after, new_total, overridden)
    moved = []
    for item in sorted(recomputed, key=lambda i: positions.get(i, 0)):
        points = overridden.get(item)
        was = before[item] if points is None else Shown(points, GRADED)
        is_now = after[item] if points is None else Shown(points, GRADED)
        if was != is_now:
            moved.append(Moved(item, was, is_now))
    return Settled(machine, new_total, new_max, _shown(before, total, overridden), now,
                   tuple(moved))


def _shown(items: Mapping[str, Shown], total: Decimal,
           overridden: Mapping[str, Decimal]) -> Shown:
    """A run's total and status with `overridden` items counted at their override's points
    and read as graded."""
    for item, points in overridden.items():
        total += points - counted(*items[item])
    return Shown(total, run_status(GRADED if item in overridden else shown.status
                                   for item, shown in items.items()))
