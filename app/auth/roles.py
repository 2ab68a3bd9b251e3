"""Who may do what, by role: plain functions of a user, for services and routers alike (the
request dependencies in app/auth/dependencies.py import FastAPI; a service, and so the CLI,
need not)."""

from __future__ import annotations

from app.db.models import Role, User


def is_staff(user: User) -> bool:
    return user.role in (Role.INSTRUCTOR.value, Role.ADMIN.value)
