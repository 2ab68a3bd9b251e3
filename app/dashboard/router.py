"""The dashboard as JSON (instructors)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.auth.dependencies import InstructorUser
from app.dashboard.service import dashboard
from app.deps import SessionDep
from app.points import numbers

router = APIRouter(prefix="/api/v1", tags=["dashboard"])


@router.get("/assignments/{slug}/dashboard")
def get_dashboard(slug: str, session: SessionDep, user: InstructorUser) -> dict[str, Any]:
    body: dict[str, Any] = numbers(dashboard(session, slug))
    return body
