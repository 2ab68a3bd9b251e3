"""The handout edition graded, set by staff over HTTP: the assignment's, or one student's.

A change that moves stored submissions to another edition starts the assignment's regrade (the
existing job; its status is in the answer), so their grades follow it.
"""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field
from starlette.concurrency import run_in_threadpool

from app.auth.dependencies import InstructorUser
from app.db.models import User
from app.db.session import unit_of_work
from app.deps import SessionDep
from app.editions import service
from app.regrade.runner import RegradeRunner

router = APIRouter(prefix="/api/v1/assignments", tags=["editions"])


class EditionIn(BaseModel):
    # One of the rubric's `handouts`; null: staff no longer decide (the declaration counts).
    handout: str | None = Field(max_length=160)


class StudentEditionOut(BaseModel):
    student: str
    handout: str


class EditionsOut(BaseModel):
    assignment: str
    handouts: list[str]
    fixed: str | None  # the assignment's edition, for everyone without one of their own
    students: list[StudentEditionOut]
    # Set when editions differ by a question and each submission's declaration decides.
    warning: str | None


class EditionChangeOut(BaseModel):
    assignment: str
    student: str | None
    handout: str | None
    # Stored submissions now graded under another edition, and the regrade that re-scores them.
    submissions: list[int]
    regrade_url: str | None


def _out(found: service.Editions) -> EditionsOut:
    return EditionsOut(
        assignment=found.assignment, handouts=found.handouts, fixed=found.fixed,
        students=[StudentEditionOut(student=s.student, handout=s.handout)
                  for s in found.students],
        warning=found.warning,
    )


@router.get("/{slug}/editions", response_model=EditionsOut, summary="The editions staff set")
def editions(slug: str, session: SessionDep, user: InstructorUser) -> EditionsOut:
    """The assignment's fixed edition, each student's, and a warning when the edition is left
    to each submission's declaration while the editions differ by a question.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment."""
    return _out(service.editions_of(session, slug))


async def _change(request: Request, slug: str, student: str | None, handout: str | None,
                  user: User) -> EditionChangeOut:
    def store() -> service.EditionChange:
        with unit_of_work(request.app.state.sessions) as session:
            return service.set_edition(session, slug, student, handout, user)

    # Committed before the regrade starts: the job reads the stored editions.
    change = await run_in_threadpool(store)
    url = None
    if change.resubmitted:
        runner: RegradeRunner = request.app.state.regrades
        job_id = runner.running_job(change.assignment)
        if job_id is None:
            job_id = await run_in_threadpool(runner.start, change.assignment, user)
        url = f"/api/v1/regrades/{job_id}"
    return EditionChangeOut(assignment=change.assignment, student=change.student,
                            handout=change.handout, submissions=change.resubmitted,
                            regrade_url=url)


@router.put("/{slug}/edition", response_model=EditionChangeOut,
            summary="Fix the assignment's edition")
async def fix_edition(slug: str, body: EditionIn, request: Request,
                      user: InstructorUser) -> EditionChangeOut:
    """Grade every submission of students without their own edition under `handout` (null:
    clear it). A declaration that disagrees is kept for staff and never changes the grade.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment; 422
    `unknown-handout` (the rubric's editions in `allowed`)."""
    return await _change(request, slug, None, body.handout, user)


@router.put("/{slug}/editions/{student}", response_model=EditionChangeOut,
            summary="Set one student's edition")
async def set_student_edition(slug: str, student: str, body: EditionIn, request: Request,
                              user: InstructorUser) -> EditionChangeOut:
    """Grade this student's submissions under `handout` (null: clear, back to the assignment's
    edition or their declaration); their stored submissions are regraded.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment; 422
    `unknown-handout` or a bad student id."""
    return await _change(request, slug, student, body.handout, user)
