"""Request dependencies: one session per request (commit on success, roll back on error)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import Depends, Path, Request
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from app.clock import Clock
from app.grading.jobs import Executor
from app.settings import Settings

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


async def get_session(request: Request) -> AsyncIterator[Session]:
    # Async so that opening and closing cost no thread hop; only a commit touches the database.
    # GET requests never write: on SQLite their transactions then leave the write lock free.
    read_only = request.method in READ_METHODS
    factory = request.app.state.read_sessions if read_only else request.app.state.sessions
    session: Session = factory()
    try:
        yield session
        if session.in_transaction():
            await run_in_threadpool(session.commit)
    except BaseException:
        if session.in_transaction():
            await run_in_threadpool(session.rollback)
        raise
    finally:
        session.close()


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_executor(request: Request) -> Executor:
    executor: Executor = request.app.state.executor
    return executor


async def get_clock(request: Request) -> Clock:
    clock: Clock = request.app.state.clock
    return clock


# Database ids are integer columns, 32 bits on PostgreSQL: a larger number names nothing, and
# PostgreSQL refuses to compare one with them ("integer out of range": a 500 for any id
# between 2^31 and 2^63 in a path, a query or a form, while SQLite took it).
MAX_ID = 2**31 - 1
IdPath = Annotated[int, Path(ge=1, le=MAX_ID)]

# scope="function": the commit happens when the route returns, before its response is sent, so
# a 2xx is never an answer about a write that is not yet durable (or that then fails), and the
# client's next request sees it (a token created, then used to sign in at once).
SessionDep = Annotated[Session, Depends(get_session, scope="function")]
SettingsDep = Annotated[Settings, Depends(get_settings)]
ExecutorDep = Annotated[Executor, Depends(get_executor)]
ClockDep = Annotated[Clock, Depends(get_clock)]
