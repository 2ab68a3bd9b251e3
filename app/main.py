"""The FastAPI application: settings, database, executor, routers, problem+json errors."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI
from sqlalchemy import text
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from app import problems
from app.assignments.router import router as assignments_router
from app.assignments.service import sync_rubric_dir
from app.auth.cache import TokenCache
from app.auth.router import router as tokens_router
from app.clock import Clock, system_clock
from app.dashboard.page import router as dashboard_page_router
from app.dashboard.router import router as dashboard_router
from app.db.session import make_engine, make_sessionmaker, read_only_engine, unit_of_work
from app.deps import SessionDep
from app.exports.router import router as exports_router
from app.grading.jobs import Executor, unfinished_jobs
from app.grading.local import LocalExecutor
from app.regrade.router import router as regrade_router
from app.review.router import router as review_router
from app.settings import Settings, get_settings
from app.submissions.intake import SubmissionIntake
from app.submissions.router import router as submissions_router

ExecutorFactory = Callable[[sessionmaker[Session], Settings], Executor]


def default_executor(sessions: sessionmaker[Session], settings: Settings) -> Executor:
    if settings.executor == "celery":
        from app.worker.executor import CeleryExecutor

        celery: Executor = CeleryExecutor(sessions, settings)
        return celery
    return LocalExecutor(sessions, settings.workers, settings.grading_options())


def _start_grading_processes(executor: Executor, workers: int) -> None:
    """Start the local pool's processes before the first upload instead of during it.

    A process pool starts its processes (and, the first time, the fork server that imports the
    graders) inside `submit`, which the upload route calls on the event loop: left to the first
    uploads, that stalled every request for a second or two."""
    pool = executor.local_pool()
    if pool is None:
        return
    # Each submit that finds no idle process starts one more, up to the pool's size.
    for started in [pool.submit(os.getpid) for _ in range(workers)]:
        started.result()


def _startup(sessions: sessionmaker[Session], settings: Settings, executor: Executor) -> None:
    _start_grading_processes(executor, settings.workers)
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, settings.rubrics_dir)
    with unit_of_work(sessions) as session:
        for job in unfinished_jobs(session):
            executor.enqueue(job)


def create_app(
    settings: Settings | None = None,
    executor_factory: ExecutorFactory = default_executor,
    clock: Clock = system_clock,
) -> FastAPI:
    settings = settings or get_settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        engine = make_engine(settings.database_url)
        sessions = make_sessionmaker(engine)
        executor = executor_factory(sessions, settings)
        app.state.settings = settings
        app.state.sessions = sessions
        app.state.read_sessions = make_sessionmaker(engine, read_only=True)
        app.state.read_engine = read_only_engine(engine)
        app.state.executor = executor
        app.state.token_cache = TokenCache()
        app.state.clock = clock  # deadlines and release read the time from here
        app.state.intake = SubmissionIntake(engine, clock=clock)
        try:
            await run_in_threadpool(_startup, sessions, settings, executor)
            yield
        finally:
            # The server has answered every request by now; the intake has nothing left to store.
            await run_in_threadpool(app.state.intake.close)
            await run_in_threadpool(executor.shutdown)
            engine.dispose()

    app = FastAPI(
        title="gradeformer",
        summary="Automated grading for transformer homework.",
        version="0.1.0",
        lifespan=lifespan,
        responses=problems.problem_responses(401, 403, 404, 422),
    )
    problems.install(app)

    @app.get("/healthz", tags=["health"])
    def healthz(session: SessionDep) -> dict[str, str]:
        session.execute(text("SELECT 1"))
        return {"status": "ok", "database": "ok"}

    for router in (
        submissions_router,
        assignments_router,
        review_router,
        exports_router,
        dashboard_router,
        regrade_router,
        tokens_router,
        dashboard_page_router,
    ):
        app.include_router(router)
    return app
