"""An assignment's schedule and limits as plain values: when it opens, is due and closes, what a
late day costs, how many uploads a student has, and whether the grades are published."""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from decimal import Decimal

from app.db.models import Assignment, CountedSubmission
from app.errors import NotOpenYet, PastCutOff, SubmissionLimitReached, SubmissionRefused
from graders.results import to_points
from graders.rubric import SolutionRelease, Visibility

DAY = timedelta(days=1)
HUNDRED = Decimal(100)


def _when(moment: datetime) -> str:
    return moment.isoformat(timespec="minutes")


@dataclass(frozen=True)
class Schedule:
    slug: str
    opens_at: datetime | None
    due_at: datetime | None
    late_until: datetime | None
    late_penalty_percent: Decimal
    max_submissions: int | None
    counts: CountedSubmission
    grades_published_at: datetime | None

    @classmethod
    def of(cls, assignment: Assignment) -> Schedule:
        return cls(
            slug=assignment.slug,
            opens_at=assignment.opens_at,
            due_at=assignment.due_at,
            late_until=assignment.late_until,
            late_penalty_percent=assignment.late_penalty_percent or Decimal(0),
            max_submissions=assignment.max_submissions,
            counts=CountedSubmission(assignment.counts),
            grades_published_at=assignment.grades_published_at,
        )

    @property
    def cut_off(self) -> datetime | None:
        """The last moment an upload is accepted: the late limit, else the due date."""
        if self.due_at is None:
            return None
        return self.late_until if self.late_until is not None else self.due_at

    @property
    def published(self) -> bool:
        return self.grades_published_at is not None

    def due_passed(self, now: datetime) -> bool:
        return self.due_at is not None and now > self.due_at

    def days_late(self, submitted_at: datetime) -> int:
        """Started days after the due date (one minute late is one day)."""
        if self.due_at is None or submitted_at <= self.due_at:
            return 0
        return math.ceil((submitted_at - self.due_at) / DAY)

    def penalty_percent(self, submitted_at: datetime) -> Decimal:
        return min(HUNDRED, self.late_penalty_percent * self.days_late(submitted_at))

    def after_penalty(self, total: Decimal, submitted_at: datetime) -> Decimal:
        percent = self.penalty_percent(submitted_at)
        if not percent:
            return total
        return to_points(total * (HUNDRED - percent) / HUNDRED)

    def refusal(self, now: datetime, used: int) -> SubmissionRefused | None:
        """Why a student may not upload now, having uploaded `used` times; None: they may."""
        if self.opens_at is not None and now < self.opens_at:
            return NotOpenYet(
                f"Submissions for {self.slug} open at {_when(self.opens_at)}. "
                "You can upload from then on.",
                opens_at=self.opens_at.isoformat(),
                action="Upload again after the assignment opens.",
            )
        cut_off = self.cut_off
        if cut_off is not None and now > cut_off:
            if self.late_until is not None and self.late_until != self.due_at:
                why = f"The late period for {self.slug} ended at {_when(cut_off)}"
            else:
                why = f"{self.slug} was due at {_when(cut_off)} and takes no late submissions"
            return PastCutOff(
                f"{why}; no more uploads are accepted. Your earlier submissions are kept. "
                "If you need an extension, ask your instructor.",
                due_at=None if self.due_at is None else self.due_at.isoformat(),
                late_until=cut_off.isoformat(),
                action="Ask your instructor for an extension.",
            )
        if self.max_submissions is not None and used >= self.max_submissions:
            return SubmissionLimitReached(
                f"You have used all {self.max_submissions} submissions for {self.slug}. "
                f"Your {self.counts.value} submission is the one that counts; list yours at "
                f"/api/v1/assignments/{self.slug}/submissions. If you need another attempt, "
                "ask your instructor.",
                max_submissions=self.max_submissions,
                used=used,
                action="Ask your instructor for another attempt.",
            )
        return None


@dataclass(frozen=True)
class ReleaseState:
    """What has been released to students at one moment."""

    published: bool
    due_passed: bool

    @classmethod
    def at(cls, schedule: Schedule, now: datetime) -> ReleaseState:
        return cls(schedule.published, schedule.due_passed(now))

    def shows(self, visibility: Visibility) -> bool:
        """A student may see an item of this visibility (hidden items never)."""
        if visibility == "visible":
            return True
        if visibility == "after_due_date":
            return self.due_passed or self.published
        if visibility == "after_published":
            return self.published
        return False

    def solutions(self, release: SolutionRelease) -> bool:
        if release == "after_due_date":
            return self.due_passed or self.published
        if release == "after_published":
            return self.published
        return False
