"""The FastAPI application: settings, database, executor, routers, problem+json errors."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from datetime import timedelta

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse
from sqlalchemy.orm import Session, sessionmaker
from starlette.concurrency import run_in_threadpool

from app import api_docs, problems
from app.active.page import router as active_page_router
from app.active.router import router as active_router
from app.appeals.router import router as appeals_router
from app.assignments.router import router as assignments_router
from app.assignments.service import sync_rubric_dir
from app.auth.cache import TokenCache
from app.auth.page_sessions import PageSessions
from app.auth.router import router as tokens_router
from app.calibration.router import router as risk_router
from app.clock import Clock, system_clock
from app.dashboard.page import router as dashboard_page_router
from app.dashboard.router import router as dashboard_router
from app.db.session import make_engine, make_sessionmaker, read_only_engine, unit_of_work
from app.editions.router import router as editions_router
from app.exports.router import router as exports_router
from app.grading.jobs import Executor, Sweeper, sweep
from app.grading.local import LocalExecutor
from app.grading.processes import ProcessPools
from app.groups.page import router as groups_page_router
from app.groups.router import router as groups_router
from app.health import check
from app.middleware import UPLOAD_PATH, BodyLimit, HeadAsGet, SecurityHeaders
from app.regrade.router import router as regrade_router
from app.regrade.runner import RegradeRunner
from app.review.router import router as review_router
from app.roster.router import router as roster_router
from app.settings import Settings, get_settings
from app.submissions.decoding import DecodeLimits, DocumentReader
from app.submissions.intake import SubmissionIntake
from app.submissions.limits import UploadLimits
from app.submissions.router import router as submissions_router
from app.submissions.upload import MULTIPART_SLACK
from app.web.appeals import router as web_appeals_router
from app.web.batch import router as web_batch_router
from app.web.editions import router as web_editions_router
from app.web.home import router as web_home_router
from app.web.regrade import router as web_regrade_router
from app.web.review import router as web_review_router
from app.web.settings import router as web_settings_router
from app.web.signin import SignInLimits
from app.web.signin import router as web_signin_router
from app.web.static_files import router as web_static_router
from app.web.submission import router as web_submission_router
from app.web.submit import router as web_submit_router

ExecutorFactory = Callable[[sessionmaker[Session], Settings], Executor]
# How long the start waits for the first document reader (a fork server started from nothing
# on a loaded host takes seconds); past it, the first uploads start their own.
READERS_START_SECONDS = 60.0


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
    if not isinstance(executor, LocalExecutor):
        return
    pool = executor.pools.get()
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
        everything=isinstance(executor, LocalExecutor),
    )


class _Health:
    def __init__(self, database_url: str) -> None:
        try:
            self.engine = make_engine(database_url, pool_size=1, max_overflow=0, pool_timeout=10)
        except TypeError:  # an in-memory SQLite database has a pool of its own kind
            self.engine = make_engine(database_url)
        self.thread = concurrent.futures.ThreadPoolExecutor(1, "healthz")

    def close(self) -> None:
        self.thread.shutdown(wait=True)
        self.engine.dispose()


def create_app(
    settings: Settings | None = None,
    executor_factory: ExecutorFactory = default_executor,
    clock: Clock = system_clock,
) -> FastAPI:
    settings = settings or get_settings()
    upload_cap = settings.max_upload_bytes + MULTIPART_SLACK

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
        app.state.page_sessions = PageSessions()
        app.state.sign_in_limits = SignInLimits(settings)
        app.state.intake = SubmissionIntake(
            engine, clock=clock, lease_seconds=settings.grading_lease_seconds,
            in_progress=settings.uploads_in_progress,
        )
        app.state.health = _Health(settings.database_url)
        app.state.upload_limits = UploadLimits(
            app.state.read_engine,
            settings.uploads_per_minute,
            settings.upload_burst,
            settings.student_quota_bytes,
            in_progress=settings.uploads_in_progress,
        )
        app.state.document_reader = DocumentReader(
            DecodeLimits(
                settings.decode_seconds, settings.decode_max_pages, settings.decode_memory_bytes
            ),
            settings.decode_concurrency,
        )
        # Regrades grade on the local executor's pools, or (Celery) on pools of their own,
        # started on the first regrade and kept for the server's life.
        regrade_pools = executor.pools if isinstance(executor, LocalExecutor) else ProcessPools(
            settings.workers, settings.grading_options(), settings.max_grading_attempts)
        app.state.regrades = RegradeRunner(
            sessions,
            regrade_pools,
            batch_size=settings.regrade_batch,
            stale_after=timedelta(seconds=settings.regrade_stale_seconds),
        )
        sweeper = Sweeper(
            sessions, executor, settings.sweep_interval_seconds, settings.grading_lease_seconds
        )
        try:
            await run_in_threadpool(_startup, sessions, settings, executor)
            # After the grading processes: the fork server they start has the readers imported
            # (a Celery API's readers start it). Ready before the first request: an upload never
            # waits for a helper to start, yet a broken fork server cannot stop the start.
            await run_in_threadpool(app.state.document_reader.start, READERS_START_SECONDS)
            sweeper.start()
            yield
        finally:
            # The server has answered every request by now; the intake has nothing left to store.
            await run_in_threadpool(sweeper.stop)
            await run_in_threadpool(app.state.intake.close)
            await run_in_threadpool(app.state.regrades.close)
            await run_in_threadpool(app.state.document_reader.close)
            if not isinstance(executor, LocalExecutor):  # the executor lets its own go
                await run_in_threadpool(regrade_pools.close)
            # Running jobs get a bounded time; the rest go back to the queue for the next start.
            await run_in_threadpool(executor.shutdown, settings.shutdown_grace_seconds)
            await run_in_threadpool(app.state.health.close)
            engine.dispose()

    app = FastAPI(
        title="gradeformer",
        summary="Automated grading for transformer homework.",
        version="0.1.0",
        lifespan=lifespan,
        responses=problems.problem_responses(401, 403, 404, 422),
        docs_url=None,  # served by app/api_docs.py, without a CDN
        redoc_url=None,
    )
    api_docs.install(app)
    problems.install(app)
    # Outermost last: the body cap sees the request before anything but HEAD's rewrite (which
    # reads no body) does.
    app.add_middleware(SecurityHeaders)
    app.add_middleware(
        BodyLimit,
        limit_for=lambda path: (
            upload_cap if UPLOAD_PATH.match(path) else settings.max_request_bytes
        ),
        read_timeout=settings.body_read_timeout,
        anonymous_seconds=settings.anonymous_body_seconds,
        min_rate=settings.body_min_rate,
    )
    app.add_middleware(HeadAsGet)

    @app.get("/healthz", tags=["health"], summary="Check the server's health")
    async def healthz(request: Request) -> JSONResponse:
        """The database takes writes and the disks have room (503 otherwise). Its own thread
        and its own connection: a flood of requests that fills the request threads or the
        connection pool must not make the server look dead to its monitor.

        Errors: 503 the database takes no writes or a disk is (nearly) full; the body says
        which."""
        health: _Health = request.app.state.health
        result = await asyncio.wrap_future(health.thread.submit(check, health.engine, settings))
        return JSONResponse(result.body(), status_code=200 if result.ok else 503)

    for router in (
        submissions_router,
        assignments_router,
        review_router,
        exports_router,
        roster_router,
        editions_router,
        dashboard_router,
        regrade_router,
        risk_router,
        tokens_router,
        dashboard_page_router,
        web_signin_router,
        web_home_router,
        web_review_router,
        web_submission_router,
        web_regrade_router,
        web_submit_router,
        web_batch_router,
        web_settings_router,
        web_editions_router,
        web_static_router,
        groups_router,
        groups_page_router,
        active_router,
        active_page_router,
        appeals_router,
        web_appeals_router,
    ):
        app.include_router(router)
    return app
