"""Who is asking: the bearer token's user, and role requirements."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from sqlalchemy import Engine
from starlette.concurrency import run_in_threadpool

from app.auth.cache import TokenCache
from app.auth.service import Identity, hash_token, identify
from app.db.models import Role, User
from app.errors import NotAuthenticated, NotPermitted

_bearer = HTTPBearer(auto_error=False, description="An API token from `gradeformer token create`.")


def _look_up(read_engine: Engine, secret: str) -> Identity:
    # Its own short read-only transaction, not the request's: on SQLite a writing transaction
    # holds the write lock, and an upload must not hold it while its body is still arriving.
    with read_engine.connect() as connection:
        return identify(connection, secret)


async def current_user(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> User:
    if credentials is None:
        raise NotAuthenticated("This endpoint needs an `Authorization: Bearer <token>` header.")
    # Async: a recently verified token costs neither a thread hop nor a database read.
    cache: TokenCache = request.app.state.token_cache
    token_hash = hash_token(credentials.credentials)
    identity = cache.get(token_hash)
    if identity is None:
        identity = await run_in_threadpool(
            _look_up, request.app.state.read_engine, credentials.credentials
        )
        cache.put(token_hash, identity)
    return identity.user()


def is_staff(user: User) -> bool:
    return user.role in (Role.INSTRUCTOR.value, Role.ADMIN.value)


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
