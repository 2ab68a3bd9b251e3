"""The dashboard as JSON (instructors)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from app.auth.dependencies import InstructorUser
from app.dashboard.service import dashboard
from app.deps import SessionDep
from app.points import numbers

router = APIRouter(prefix="/api/v1", tags=["dashboard"])


@router.get("/assignments/{slug}/dashboard", summary="Read an assignment's statistics")
def get_dashboard(slug: str, session: SessionDep, user: InstructorUser) -> dict[str, Any]:
    """Score statistics of the assignment: per-item means and answer keys, the status counts
    and a histogram of totals.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment."""
    body: dict[str, Any] = numbers(dashboard(session, slug))
    return body
