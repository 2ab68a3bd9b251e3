"""What a student sees of a scored submission: their status, and points and feedback only as the
rubric and the assignment's release allow. Never the staff feedback, evidence, confidence,
machine points or who overrode."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from decimal import Decimal
from functools import cached_property

from sqlalchemy.orm import Session

from app.assignments.repository import current_version
from app.assignments.schedule import ReleaseState, Schedule
from app.assignments.service import parsed_version
from app.db.models import Assignment, CountedSubmission
from app.errors import NotFound
from app.submissions.scoring import EffectiveItem, points_message
from app.submissions.service import ScoredSubmission
from graders.disclosure import solution_text
from graders.results import Status
from graders.rubric import Rubric, RubricItem, Visibility

# Statuses whose points are a machine suggestion or nothing at all: never shown as a score.
_UNDECIDED = frozenset(
    {Status.NEEDS_REVIEW.value, Status.GRADER_ERROR.value, Status.PENDING.value}
)
_REVIEW_MESSAGE = "Being reviewed by course staff."
_STATUS_MESSAGES = {
    Status.NEEDS_REVIEW.value: _REVIEW_MESSAGE,
    Status.GRADER_ERROR.value: _REVIEW_MESSAGE,
    Status.PENDING.value: "Not graded yet.",
    Status.MISSING.value: "No answer was found for this part.",
    Status.SUBMISSION_ERROR.value: "Your code could not be run to the end, so this part "
    "could not be checked.",
    Status.GRADED.value: "Graded; the score is released later.",
}


def neutral_message(item: EffectiveItem, show_points: bool) -> str:
    """A message built from status and points alone, for items without a student message."""
    if item.override is None and item.status in _UNDECIDED:
        return _STATUS_MESSAGES[item.status]
    if not show_points:
        return _STATUS_MESSAGES.get(item.status, _REVIEW_MESSAGE)
    return points_message(item.points, item.max_points,
                          missing=item.status == Status.MISSING.value and item.override is None)


# A submission's status in words a student reads (never the raw `needs_review`).
_STUDENT_STATUS = {
    Status.GRADED.value: "graded",
    Status.NEEDS_REVIEW.value: "being reviewed by course staff",
    Status.GRADER_ERROR.value: "being reviewed by course staff",
    Status.PENDING.value: "not graded yet",
    Status.MISSING.value: "no answers found",
    Status.SUBMISSION_ERROR.value: "could not be graded",
}


def student_status(status: str) -> str:
    return _STUDENT_STATUS.get(status, "being processed")


def counting_rule(schedule: Schedule) -> str:
    """Which of a student's uploads is their grade, in words."""
    if schedule.counts == CountedSubmission.BEST:
        return "Your upload with the best total counts."
    if schedule.counts == CountedSubmission.CHOSEN:
        return ("The upload your instructor marks counts; until one is marked, your latest "
                "upload counts.")
    return "Your latest upload counts."


def shows_counted(schedule: Schedule, state: ReleaseState) -> bool:
    """Whether a student may be told which upload counts: under "best" that compares totals,
    so only once the grades are published."""
    return schedule.counts != CountedSubmission.BEST or state.published


def student_error(s: ScoredSubmission) -> str | None:
    """Why a document was not graded, for its student: the reading problem in their document,
    but not the details of a failure of ours."""
    if s.submission.error is None:
        return None
    if s.submission.status == Status.GRADER_ERROR.value:
        return "Something went wrong on our side while grading; course staff will look at it."
    return s.submission.error


@dataclass(frozen=True)
class AssignmentView:
    """One assignment's schedule, current rubric and release state at one moment."""

    schedule: Schedule
    rubric: Rubric | None
    state: ReleaseState

    def visibility(self, item_id: str) -> Visibility:
        """The item's rule; an item the current rubric no longer has waits for publication."""
        item = self.item(item_id)
        if self.rubric is None or item is None:
            return "after_published"
        return self.rubric.visibility_of(item)

    @cached_property
    def _items(self) -> dict[str, RubricItem]:
        # A page asks about every item several times: a scan each time made it quadratic.
        found: dict[str, RubricItem] = {}
        for i in () if self.rubric is None else self.rubric.items():
            found.setdefault(i.id, i)
        return found

    def item(self, item_id: str) -> RubricItem | None:
        return self._items.get(item_id)

    @cached_property
    def _places(self) -> dict[str, str]:
        """Each item's place in its question, as a student may call it before release."""
        places: dict[str, str] = {}
        for question in () if self.rubric is None else self.rubric.questions:
            several = len(question.items) > 1
            for number, i in enumerate(question.items, start=1):
                places.setdefault(i.id, f"{question.id} part {number}" if several
                                  else question.id)
        return places

    def name_of(self, item_id: str, question: str) -> str:
        """What a student calls an item: its id once its points are released or its title is
        public; before that its place in its question ("B3 part 3"), since an id such as
        `b3.row_softmax` says what is checked as plainly as the title hidden beside it. The
        place has a space, so it is never taken for another item's id."""
        item = self.item(item_id)
        if self.state.shows(self.visibility(item_id)) or (
                item is not None and self.title_of(item) is not None):
            return item_id
        return self._places.get(item_id, question)

    @property
    def solutions_released(self) -> bool:
        return self.rubric is not None and self.state.solutions(self.rubric.release.solutions)

    def title_of(self, item: RubricItem) -> str | None:
        released = self.solutions_released and self.visibility(item.id) != "hidden"
        return item.title if item.title and (item.title_public or released) else None

    def solution_of(self, item: RubricItem) -> str | None:
        if not self.solutions_released or self.visibility(item.id) == "hidden":
            return None
        return solution_text(item) or None


def assignment_view(session: Session, assignment: Assignment, now: datetime) -> AssignmentView:
    version = current_version(session, assignment.id)
    rubric = None if version is None else parsed_version(version).rubric
    schedule = Schedule.of(assignment)
    return AssignmentView(schedule, rubric, ReleaseState.at(schedule, now))


@dataclass(frozen=True)
class StudentItem:
    id: str  # the item's id, or its place in its question before release (`name_of`)
    question: str
    status: str
    max_points: Decimal
    points: Decimal | None  # None: not released, or not decided yet
    feedback: str
    released: bool
    title: str | None
    solution: str | None


def student_item(
    item: EffectiveItem, view: AssignmentView, declared: bool = False
) -> StudentItem:
    """`declared`: the submission declared its handout edition (a part it does not ask is
    said so at once)."""
    released = view.state.shows(view.visibility(item.item_id))
    show_points = released and (item.override is not None or item.status not in _UNDECIDED)
    if show_points and item.student_feedback:
        # The grader's words for its own score, or the text of the human decision
        # (app/submissions/scoring.py `decided_feedback`): the same on every page and export.
        feedback = item.student_feedback
    elif (declared and item.override is None and item.student_feedback
          and item.max_points == 0 and item.status == Status.MISSING.value):
        # A part their declared handout edition does not ask says so before release too: it
        # tells no score, only what they declared.
        feedback = item.student_feedback
    else:
        feedback = neutral_message(item, show_points)
    rubric_item = view.item(item.item_id)
    return StudentItem(
        id=view.name_of(item.item_id, item.question),
        question=item.question,
        status=item.status,
        max_points=item.max_points,
        points=item.points if show_points else None,
        feedback=feedback,
        released=released,
        title=None if rubric_item is None else view.title_of(rubric_item),
        solution=None if rubric_item is None else view.solution_of(rubric_item),
    )


@dataclass(frozen=True)
class StudentScore:
    status: str
    items: tuple[StudentItem, ...]
    # None until every item's points may be shown (or the grades are published).
    total: Decimal | None
    max_points: Decimal | None
    days_late: int
    penalty_percent: Decimal
    # Why `total` is None, in words (None when the total is shown).
    total_note: str | None = None

    @property
    def status_text(self) -> str:
        return student_status(self.status)


def _total_note(items: tuple[StudentItem, ...], view: AssignmentView) -> str:
    if not items:
        return "Not graded yet."
    if not view.state.published and not all(i.released for i in items):
        return "Grades are not published yet."
    return "Some parts are still being reviewed by course staff."


def student_score(s: ScoredSubmission, view: AssignmentView) -> StudentScore:
    declared = s.submission.handout is not None
    items = tuple(student_item(i, view, declared) for i in s.score.items)
    submitted = s.submission.created_at
    total: Decimal | None = None
    everything_shown = all(i.released for i in items)
    if items and (view.state.published or everything_shown):
        decided = [i for i in s.score.items if i.override is not None or i.status not in _UNDECIDED]
        if len(decided) == len(items):
            raw = sum((i.points for i in decided if i.counts), Decimal(0))
            total = view.schedule.after_penalty(raw, submitted)
    return StudentScore(
        status=s.score.status,
        items=items,
        total=total,
        max_points=s.score.max_points,
        days_late=view.schedule.days_late(submitted),
        penalty_percent=view.schedule.penalty_percent(submitted),
        total_note=None if total is not None else _total_note(items, view),
    )


def view_for(session: Session, s: ScoredSubmission, now: datetime) -> AssignmentView:
    assignment = session.get(Assignment, s.submission.assignment_id)
    if assignment is None:  # deleted meanwhile
        raise NotFound(f"There is no submission {s.submission.id}.")
    return assignment_view(session, assignment, now)
