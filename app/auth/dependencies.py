"""Who is asking: the bearer token's user, and role requirements."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import Engine
from starlette.concurrency import run_in_threadpool

from app.auth.cache import TokenCache
from app.auth.page_sessions import COOKIE, PageSessions
from app.auth.roles import is_staff as is_staff  # re-exported for the routers
from app.auth.service import Identity, hash_token, identify
from app.db.models import Role, User
from app.errors import NotAuthenticated, NotPermitted

_bearer = HTTPBearer(auto_error=False, description="An API token from `gradeformer token create`.")


def _look_up(read_engine: Engine, secret: str) -> Identity:
    # Its own short read-only transaction, not the request's: on SQLite a writing transaction
    # holds the write lock, and an upload must not hold it while its body is still arriving.
    with read_engine.connect() as connection:
        return identify(connection, secret)


def _page_session(request: Request) -> str | None:
    """The web app's session (signed in from a browser) for reads only: the web app's export
    links are plain GETs of these endpoints. Requests that change something need the bearer
    header (or a page form with its CSRF token), never just the cookie."""
    if request.method not in ("GET", "HEAD"):
        return None
    sessions: PageSessions | None = getattr(request.app.state, "page_sessions", None)
    return None if sessions is None else sessions.token(request.cookies.get(COOKIE))


async def current_user(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> User:
    secret = credentials.credentials if credentials is not None else _page_session(request)
    if secret is None:
        raise NotAuthenticated("This endpoint needs an `Authorization: Bearer <token>` header.")
    # Async: a recently verified token costs neither a thread hop nor a database read.
    cache: TokenCache = request.app.state.token_cache
    token_hash = hash_token(secret)
    identity = cache.get(token_hash)
    if identity is None:
        identity = await run_in_threadpool(_look_up, request.app.state.read_engine, secret)
        cache.put(token_hash, identity)
    return identity.user()


async def instructor(user: Annotated[User, Depends(current_user)]) -> User:
    if not is_staff(user):
        raise NotPermitted("Only instructors may do this.")
    return user


async def admin(user: Annotated[User, Depends(current_user)]) -> User:
    if user.role != Role.ADMIN.value:
        raise NotPermitted("Only administrators may do this.")
    return user


CurrentUser = Annotated[User, Depends(current_user)]
InstructorUser = Annotated[User, Depends(instructor)]
AdminUser = Annotated[User, Depends(admin)]
