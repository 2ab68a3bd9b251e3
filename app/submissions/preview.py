"""What a student reads of one item, for staff pages: the same function the student's own pages
use (`student_item`), now and as it will read once the grades are published."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from decimal import Decimal

from app.assignments.schedule import ReleaseState
from app.db.models import ItemScore, Override
from app.submissions.scoring import EffectiveItem, decided_feedback
from app.submissions.visibility import AssignmentView, StudentItem, student_item


@dataclass(frozen=True)
class StudentPreview:
    now: StudentItem  # what the student's pages and the API show at this moment
    published: StudentItem  # the same once the grades are published (hidden items: never)

    @property
    def changes_on_publication(self) -> bool:
        return (self.now.feedback, self.now.points) != (
            self.published.feedback, self.published.points)


def published_view(view: AssignmentView) -> AssignmentView:
    """The same assignment once its grades are published."""
    return dataclasses.replace(
        view, state=ReleaseState(published=True, due_passed=view.state.due_passed))


def student_preview(item: EffectiveItem, view: AssignmentView, declared: bool = False,
                    published: AssignmentView | None = None) -> StudentPreview:
    """`published`: `published_view(view)`, when the caller previews many items."""
    later = published_view(view) if published is None else published
    return StudentPreview(student_item(item, view, declared),
                          student_item(item, later, declared))


def accepted_text(score: ItemScore, points: Decimal) -> str:
    """What the student would read, once released, if staff accepted `points` with no comment
    (the same `decided_feedback` an override gets)."""
    return decided_feedback(score, Override(points=points, comment=""))
