"""Regrade an assignment over HTTP: a dry-run diff, or a background job to poll."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request, Response, status
from pydantic import AliasChoices, BaseModel, ConfigDict, Field
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from app.auth.dependencies import InstructorUser
from app.db.session import unit_of_work
from app.deps import IdPath, SessionDep
from app.regrade import jobs
from app.regrade.changes import ScoreChange
from app.regrade.jobs import JobStatus
from app.regrade.runner import RegradeRunner

router = APIRouter(prefix="/api/v1", tags=["regrade"])


class RegradeOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)  # a RegradeReport, as it is

    assignment: str
    rubric_hash: str
    dry_run: bool
    job_id: int | None
    resumed: bool
    regraded: int = Field(validation_alias=AliasChoices("regraded", "total"))
    changed: int
    changes: list[ScoreChange]  # its points as JSON numbers (app.points.JsonPoints)


class RegradeJobOut(JobStatus):
    status_url: str

    @classmethod
    def of(cls, job: JobStatus) -> RegradeJobOut:
        return cls(**job.model_dump(), status_url=f"/api/v1/regrades/{job.id}")


def _status(sessions: sessionmaker[Session], job_id: int) -> JobStatus:
    with unit_of_work(sessions) as session:
        return jobs.job_status(session, job_id)


@router.post(
    "/assignments/{slug}/regrade",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=RegradeJobOut | RegradeOut,
    responses={
        202: {"model": RegradeJobOut, "description": "The job, started now or already running"},
        200: {"model": RegradeOut, "description": "The score changes (`dry_run=true`)"},
    },
    summary="Regrade every submission",
)
async def regrade(
    slug: str,
    request: Request,
    response: Response,
    user: InstructorUser,
    dry_run: Annotated[
        bool, Query(description="Report score changes without storing them.")
    ] = False,
) -> RegradeJobOut | RegradeOut:
    """Start regrading every submission in the background (idempotent: while a job of the
    assignment runs, its status is the answer); poll `status_url`. A dry run answers with the
    score changes once computed.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment."""
    runner: RegradeRunner = request.app.state.regrades
    if dry_run:
        response.status_code = status.HTTP_200_OK
        return RegradeOut.model_validate(await runner.dry_run(slug, user))
    job_id = runner.running_job(slug)
    if job_id is None:
        job_id = await run_in_threadpool(runner.start, slug, user)
    job = await run_in_threadpool(_status, request.app.state.read_sessions, job_id)
    response.headers["Location"] = f"/api/v1/regrades/{job_id}"
    return RegradeJobOut.of(job)


@router.get(
    "/assignments/{slug}/regrade", response_model=RegradeJobOut,
    summary="Read the latest regrade job",
)
def latest_regrade(slug: str, session: SessionDep, user: InstructorUser) -> RegradeJobOut:
    """The assignment's most recent regrade job: status, progress, changed scores.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment, or it
    was never regraded."""
    return RegradeJobOut.of(jobs.latest_status(session, slug))


@router.get("/regrades/{job_id}", response_model=RegradeJobOut, summary="Read a regrade job")
def regrade_job(job_id: IdPath, session: SessionDep, user: InstructorUser) -> RegradeJobOut:
    """A regrade job's status (running, done, failed or abandoned), how many submissions it
    regraded of how many, and how many scores changed.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 no such job."""
    return RegradeJobOut.of(jobs.job_status(session, job_id))
