"""Regrade an assignment over HTTP: a dry-run diff first, then apply."""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from typing import Annotated

from fastapi import APIRouter, Query, Request
from pydantic import BaseModel
from starlette.concurrency import run_in_threadpool

from app.auth.dependencies import InstructorUser
from app.deps import ExecutorDep, SettingsDep
from app.grading.local import process_pool
from app.points import JsonPoints
from app.regrade.runner import RegradeReport, run_regrade

router = APIRouter(prefix="/api/v1", tags=["regrade"])


class ItemChangeOut(BaseModel):
    item_id: str
    old_points: JsonPoints | None
    new_points: JsonPoints
    old_status: str | None
    new_status: str


class ScoreChangeOut(BaseModel):
    submission_id: int
    student: str | None
    old_total: JsonPoints | None
    new_total: JsonPoints | None
    old_status: str
    new_status: str
    items: list[ItemChangeOut]


class RegradeOut(BaseModel):
    assignment: str
    rubric_hash: str
    dry_run: bool
    job_id: int | None
    resumed: bool
    regraded: int
    changed: int
    changes: list[ScoreChangeOut]


def _out(report: RegradeReport) -> RegradeOut:
    return RegradeOut(
        assignment=report.assignment,
        rubric_hash=report.rubric_hash,
        dry_run=report.dry_run,
        job_id=report.job_id,
        resumed=report.resumed,
        regraded=report.total,
        changed=report.changed,
        changes=[
            ScoreChangeOut(
                submission_id=c.submission_id,
                student=c.student,
                old_total=c.old_total,
                new_total=c.new_total,
                old_status=c.old_status,
                new_status=c.new_status,
                items=[ItemChangeOut(**vars(i)) for i in c.items],
            )
            for c in report.changes
        ],
    )


@router.post("/assignments/{slug}/regrade", response_model=RegradeOut)
async def regrade(
    slug: str,
    request: Request,
    user: InstructorUser,
    settings: SettingsDep,
    executor: ExecutorDep,
    dry_run: Annotated[
        bool, Query(description="Report score changes without storing them.")
    ] = False,
) -> RegradeOut:
    sessions = request.app.state.sessions
    pool = executor.local_pool()
    own: ProcessPoolExecutor | None = None
    if pool is None:
        own = pool = process_pool(settings.workers, settings.grading_options())
    try:
        report = await run_in_threadpool(
            lambda: run_regrade(
                sessions, slug, pool, dry_run=dry_run, actor=user, batch_size=settings.regrade_batch
            )
        )
    finally:
        if own is not None:
            own.shutdown()
    return _out(report)
