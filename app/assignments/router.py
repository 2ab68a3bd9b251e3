"""Assignments and their current rubric."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel

from app.assignments import service
from app.auth.dependencies import CurrentUser
from app.deps import SessionDep
from app.points import JsonPoints

router = APIRouter(prefix="/api/v1/assignments", tags=["assignments"])


class ItemInfo(BaseModel):
    id: str
    question: str
    title: str
    points: JsonPoints
    grader: str


class AssignmentOut(BaseModel):
    slug: str
    title: str
    rubric_version: str
    rubric_hash: str
    max_points: JsonPoints
    items: list[ItemInfo]


@router.get("", response_model=list[str])
def list_assignments(session: SessionDep, user: CurrentUser) -> list[str]:
    return [a.slug for a in service.list_assignments(session)]


@router.get("/{slug}", response_model=AssignmentOut)
def get_assignment(slug: str, session: SessionDep, user: CurrentUser) -> AssignmentOut:
    current = service.current_rubric(session, slug)
    rubric = current.loaded.rubric
    return AssignmentOut(
        slug=rubric.slug,
        title=rubric.title,
        rubric_version=rubric.version,
        rubric_hash=current.loaded.content_hash,
        max_points=rubric.max_points,
        items=[
            ItemInfo(id=i.id, question=q.id, title=i.title, points=i.points, grader=i.grader)
            for q in rubric.questions
            for i in q.items
        ],
    )
