"""A run's status and total from its items: the one rule for a fresh run (graders.engine), a
stored run read with overrides (app.submissions.scoring) and a run re-scored in place
(graders.cache.settle)."""

from __future__ import annotations

from collections.abc import Iterable
from decimal import Decimal

from graders.results import Status

# Items whose points do not count: nothing trustworthy was computed for them.
NOT_COUNTED = frozenset({Status.PENDING.value, Status.GRADER_ERROR.value})
# The worst item decides what the run needs next; with none of these it is graded.
PRECEDENCE = (Status.GRADER_ERROR.value, Status.PENDING.value, Status.NEEDS_REVIEW.value)


def run_status(statuses: Iterable[str]) -> str:
    """The run's status from its items' statuses."""
    found = set(statuses)
    return next((s for s in PRECEDENCE if s in found), Status.GRADED.value)


def counted(points: Decimal, status: str) -> Decimal:
    """What an item of this status adds to its run's total."""
    return Decimal(0) if status in NOT_COUNTED else points
