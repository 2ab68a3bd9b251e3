"""Which edition is graded, as a pure function: staff's when they set one, else the upload's.

A student's declaration chooses which questions count where editions differ by a question
(docs/hardening.md), so once staff have decided, a declaration never changes the grade: one that
agrees changes nothing, one that disagrees is kept for staff to read and graded under staff's.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from graders.rubric_model import Rubric


@dataclass(frozen=True)
class Edition:
    graded: str | None  # the edition graded (None: the rubric's questions as recognised)
    declared: str | None  # what the upload declared
    by_staff: bool  # staff decided `graded`

    @property
    def overridden(self) -> bool:
        """The upload declared another edition than staff's: staff should read it."""
        return self.by_staff and self.declared is not None and self.declared != self.graded


def decide(assignment: str | None, student: str | None, declared: str | None) -> Edition:
    """The student's edition set by staff, else the assignment's, else the declaration."""
    staff = student if student is not None else assignment
    if staff is None:
        return Edition(declared, declared, by_staff=False)
    return Edition(staff, declared, by_staff=True)


def questions_by_edition(rubric: Rubric) -> list[str]:
    """The questions only some of the rubric's editions ask: where a declaration moves a grade."""
    return [q.id for q in rubric.questions if rubric.handouts and rubric.handouts_without(q)]


def declared_risk(rubric: Rubric, fixed: str | None, students: Sequence[str] = ()) -> str | None:
    """A warning for staff when the edition is left to the student's declaration and editions
    differ by a question; None when they do not differ or staff fixed the assignment's."""
    differ = questions_by_edition(rubric)
    if not differ or fixed is not None:
        return None
    some = f" (staff set it for {len(students)} students)" if students else ""
    return (
        f"editions differ by question {', '.join(differ)}: where staff set no edition, the "
        f"edition graded is the one each submission declares{some}, so a student chooses which "
        "of these questions count. Fix the assignment's edition or set each student's "
        "(`gradeformer edition set`)."
    )
