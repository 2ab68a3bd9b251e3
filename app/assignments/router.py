"""Assignments and their current rubric: everything for staff, the handout for students."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal

from fastapi import APIRouter
from pydantic import AwareDatetime, BaseModel, Field

from app.assignments import release, service
from app.assignments.release import MAX_SUBMISSIONS
from app.assignments.schedule import ReleaseState, Schedule
from app.auth.dependencies import CurrentUser, InstructorUser, is_staff
from app.db.models import Assignment, CountedSubmission
from app.deps import ClockDep, SessionDep
from app.editions.policy import declared_risk
from app.points import JsonPoints
from app.submissions.visibility import AssignmentView
from graders.rubric import SolutionRelease, Visibility

router = APIRouter(prefix="/api/v1/assignments", tags=["assignments"])


class ScheduleOut(BaseModel):
    opens_at: datetime | None
    due_at: datetime | None
    late_until: datetime | None = Field(description="The hard cut-off for late uploads.")
    late_penalty_percent: JsonPoints = Field(description="Percent lost per started day late.")
    max_submissions: int | None
    counts: CountedSubmission = Field(description="Which submission is the grade.")
    grades_published_at: datetime | None

    @classmethod
    def of(cls, schedule: Schedule) -> ScheduleOut:
        return cls(
            opens_at=schedule.opens_at,
            due_at=schedule.due_at,
            late_until=schedule.late_until,
            late_penalty_percent=schedule.late_penalty_percent,
            max_submissions=schedule.max_submissions,
            counts=schedule.counts,
            grades_published_at=schedule.grades_published_at,
        )


class WaitingItemOut(BaseModel):
    item_id: str
    question: str
    waiting: int = Field(description="Answers of this item still in the review queue.")


class PublishOut(ScheduleOut):
    still_in_review: list[WaitingItemOut] = Field(
        default_factory=list,
        description="When publishing: the items with answers still in review (their students "
        "see them as being reviewed, and no total, until they are decided).")


class ScheduleIn(BaseModel):
    """Only the fields sent change; null clears a date or the submission limit."""

    opens_at: AwareDatetime | None = None
    due_at: AwareDatetime | None = None
    late_until: AwareDatetime | None = None
    late_penalty_percent: Decimal = Field(default=Decimal(0), ge=0, le=100)
    max_submissions: int | None = Field(default=None, ge=1, le=MAX_SUBMISSIONS)
    counts: CountedSubmission = CountedSubmission.LATEST


class ItemInfo(BaseModel):
    id: str
    question: str
    title: str
    points: JsonPoints
    grader: str
    visibility: Visibility
    title_public: bool


class AssignmentOut(BaseModel):
    """The staff view: the whole rubric, its release settings and the schedule."""

    slug: str
    title: str
    rubric_version: str
    rubric_hash: str
    max_points: JsonPoints
    solutions: SolutionRelease
    schedule: ScheduleOut
    items: list[ItemInfo]
    # The edition staff fixed for everyone (app/editions), and a warning when none is fixed
    # while the editions differ by a question (each submission's declaration decides).
    handout: str | None = None
    edition_warning: str | None = None


class StudentItemInfo(BaseModel):
    id: str
    points: JsonPoints
    title: str | None = Field(description="Only when the rubric marks it public, or released.")
    solution: str | None = Field(description="Once the rubric's solutions are released.")


class QuestionOut(BaseModel):
    id: str
    title: str
    prompt: str
    points: JsonPoints
    items: list[StudentItemInfo]


class StudentAssignmentOut(BaseModel):
    """The handout: questions, prompts and points; nothing that gives an answer away."""

    slug: str
    title: str
    description: str
    max_points: JsonPoints
    schedule: ScheduleOut
    questions: list[QuestionOut]


@router.get("", response_model=list[str], summary="List assignments")
def list_assignments(session: SessionDep, user: CurrentUser) -> list[str]:
    """The slugs of every assignment with a rubric loaded.

    Errors: 401 no or an unknown token."""
    return [a.slug for a in service.list_assignments(session)]


def _staff_view(current: service.CurrentRubric) -> AssignmentOut:
    rubric = current.loaded.rubric
    return AssignmentOut(
        slug=rubric.slug,
        title=rubric.title,
        rubric_version=rubric.version,
        rubric_hash=current.loaded.content_hash,
        max_points=rubric.max_points,
        solutions=rubric.release.solutions,
        schedule=ScheduleOut.of(Schedule.of(current.assignment)),
        items=[
            ItemInfo(
                id=i.id,
                question=q.id,
                title=i.title,
                points=i.points,
                grader=i.grader,
                visibility=rubric.visibility_of(i),
                title_public=i.title_public,
            )
            for q in rubric.questions
            for i in q.items
        ],
        handout=current.assignment.handout,
        edition_warning=declared_risk(rubric, current.assignment.handout),
    )


def _student_view(current: service.CurrentRubric, now: datetime) -> StudentAssignmentOut:
    rubric = current.loaded.rubric
    schedule = Schedule.of(current.assignment)
    view = AssignmentView(schedule, rubric, ReleaseState.at(schedule, now))
    return StudentAssignmentOut(
        slug=rubric.slug,
        title=rubric.title,
        description=rubric.description,
        max_points=rubric.max_points,
        schedule=ScheduleOut.of(schedule),
        questions=[
            QuestionOut(
                id=q.id,
                title=q.title,
                prompt=q.prompt,
                points=sum((i.points for i in q.items), Decimal(0)),
                items=[
                    StudentItemInfo(
                        id=view.name_of(i.id, q.id),
                        points=i.points,
                        title=view.title_of(i),
                        solution=view.solution_of(i),
                    )
                    for i in q.items
                ],
            )
            for q in rubric.questions
        ],
    )


@router.get(
    "/{slug}",
    response_model=AssignmentOut | StudentAssignmentOut,
    summary="Read an assignment",
)
def get_assignment(
    slug: str, session: SessionDep, user: CurrentUser, clock: ClockDep
) -> AssignmentOut | StudentAssignmentOut:
    """Staff: the rubric's items, points, graders, visibility and the schedule. A student:
    the questions and points, with item titles and solutions only as the release allows.

    Errors: 401 no or an unknown token; 404 unknown assignment."""
    current = service.current_rubric(session, slug)
    if is_staff(user):
        return _staff_view(current)
    return _student_view(current, clock())


def _schedule_out(assignment: Assignment) -> ScheduleOut:
    return ScheduleOut.of(Schedule.of(assignment))


@router.patch("/{slug}/schedule", response_model=ScheduleOut, summary="Change the schedule")
def patch_schedule(
    slug: str, body: ScheduleIn, session: SessionDep, user: InstructorUser
) -> ScheduleOut:
    """Set the fields sent (opening, due date, late window and penalty, cut-off, submission
    limit, which submission counts); fields not sent keep their value.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment; 422 an
    unknown field, a time without a UTC offset, dates out of order, or a value out of range.
    """
    fields = body.model_dump(include=body.model_fields_set)
    return _schedule_out(release.update_schedule(session, slug, fields, user))


@router.post("/{slug}/publish", response_model=PublishOut, summary="Publish the grades")
def publish(slug: str, session: SessionDep, user: InstructorUser, clock: ClockDep) -> PublishOut:
    """Release the grades: students see what the rubric releases after publication.
    `still_in_review` names the items whose answers were published undecided.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment."""
    waiting = release.still_in_review(session, slug)
    published = _schedule_out(release.publish_grades(session, slug, user, clock()))
    return PublishOut(**published.model_dump(), still_in_review=[
        WaitingItemOut(item_id=w.item_id, question=w.question, waiting=w.waiting)
        for w in waiting])


@router.delete("/{slug}/publish", response_model=ScheduleOut, summary="Withdraw the grades")
def withdraw(slug: str, session: SessionDep, user: InstructorUser) -> ScheduleOut:
    """Withdraw published grades (students see only what is `visible` again).

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment."""
    return _schedule_out(release.withdraw_grades(session, slug, user))
