"""Who is asking: the bearer token's user, and role requirements."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from app.auth.service import authenticate
from app.db.models import Role, User
from app.db.session import unit_of_work
from app.errors import NotAuthenticated, NotPermitted

_bearer = HTTPBearer(auto_error=False, description="An API token from `gradeformer token create`.")


def current_user(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> User:
    if credentials is None:
        raise NotAuthenticated("This endpoint needs an `Authorization: Bearer <token>` header.")
    # Its own short read-only transaction, not the request's: on SQLite a writing transaction
    # holds the write lock, and an upload must not hold it while its body is still arriving.
    with unit_of_work(request.app.state.read_sessions) as session:
        user = authenticate(session, credentials.credentials)
        session.expunge(user)
    return user


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
