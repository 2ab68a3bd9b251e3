"""The FastAPI application: settings, database, executor, routers, problem+json errors."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from app import problems
from app.assignments.router import router as assignments_router
from app.assignments.service import sync_rubric_dir
from app.auth.cache import TokenCache
from app.auth.router import router as tokens_router
from app.dashboard.page import router as dashboard_page_router
from app.dashboard.router import router as dashboard_router
from app.db.session import make_engine, make_sessionmaker, read_only_engine, unit_of_work
from app.exports.router import router as exports_router
from app.grading.jobs import Executor
from app.grading.local import LocalExecutor
from app.grading.sweeper import Sweeper, sweep
from app.health import check
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
    return LocalExecutor(
        sessions, settings.workers, settings.grading_options(), settings.max_grading_attempts
    )


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
    # A local executor is the database's only grader: what is unfinished at start was held by
    # the previous server, so it takes all of it now instead of waiting for the leases to run
    # out. Anything else (Celery) takes only what nobody holds.
    sweep(
        sessions,
        executor,
        settings.grading_lease_seconds,
        everything=executor.local_pool() is not None,
    )


def create_app(
    settings: Settings | None = None, executor_factory: ExecutorFactory = default_executor
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
        app.state.intake = SubmissionIntake(engine, lease_seconds=settings.grading_lease_seconds)
        app.state.engine = engine
        sweeper = Sweeper(
            sessions, executor, settings.sweep_interval_seconds, settings.grading_lease_seconds
        )
        try:
            await run_in_threadpool(_startup, sessions, settings, executor)
            sweeper.start()
            yield
        finally:
            # The server has answered every request by now; the intake has nothing left to store.
            await run_in_threadpool(sweeper.stop)
            await run_in_threadpool(app.state.intake.close)
            # Running jobs get a bounded time; the rest go back to the queue for the next start.
            await run_in_threadpool(executor.shutdown, settings.shutdown_grace_seconds)
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
    def healthz() -> JSONResponse:
        """The database takes writes and the disks have room (503 otherwise)."""
        health = check(app.state.engine, settings)
        return JSONResponse(health.body(), status_code=200 if health.ok else 503)

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
