"""Review queue, overrides and exemplars (instructors)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Query, status
from pydantic import BaseModel, Field

from app.auth.dependencies import InstructorUser
from app.deps import MAX_ID, IdPath, SessionDep
from app.points import JsonPoints
from app.review import service, undo

router = APIRouter(prefix="/api/v1", tags=["review"])


class ReviewEntryOut(BaseModel):
    submission_id: int
    student: str | None
    submitted_at: datetime
    item_id: str
    question: str
    suggested_points: JsonPoints
    max_points: JsonPoints
    confidence: float
    feedback: str
    evidence: list[dict[str, Any]]
    answer: str


class OverrideIn(BaseModel):
    points: JsonPoints = Field(description="Exact points, 0 ≤ points ≤ the item's maximum.")
    comment: str = Field(default="", max_length=5000)


class OverrideOut(BaseModel):
    submission_id: int
    item_id: str
    points: JsonPoints
    comment: str
    user_id: int | None
    updated_at: datetime


class UndoneOut(BaseModel):
    submission_id: int
    item_id: str
    undone: int = Field(description="The audit entry id of the decision undone.")
    override: OverrideOut | None = Field(
        description="The override in force now (the earlier decision), or null: the machine's "
        "score counts again.")


def _override_out(o: Any) -> OverrideOut:
    return OverrideOut(submission_id=o.submission_id, item_id=o.item_id, points=o.points,
                       comment=o.comment, user_id=o.user_id, updated_at=o.updated_at)


class ExemplarOut(BaseModel):
    item_id: str
    text: str
    points: JsonPoints


@router.get(
    "/assignments/{slug}/review", response_model=list[ReviewEntryOut],
    summary="List what needs a human",
)
def review_queue(
    slug: str,
    session: SessionDep,
    user: InstructorUser,
    limit: Annotated[int, Query(ge=1, le=5000)] = 200,
) -> list[ReviewEntryOut]:
    """Items graded `needs_review` with no instructor decision yet, oldest first, each with the
    grader's suggestion and reason; only the submission that counts for each student (latest,
    best or chosen, as the assignment counts): a replaced submission's items are not listed.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment; 422
    `limit` out of range."""
    return [ReviewEntryOut(**vars(e)) for e in service.review_queue(session, slug, limit)]


@router.put(
    "/submissions/{submission_id}/items/{item_id}/override", response_model=OverrideOut,
    summary="Override an item's points",
)
def put_override(
    submission_id: IdPath, item_id: str, body: OverrideIn, session: SessionDep, user: InstructorUser
) -> OverrideOut:
    """Set a human's points (and comment) for one item; it replaces the machine's score in
    every total, and survives regrades.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 no such submission or
    item; 422 points out of range or finer than hundredths."""
    o = service.set_override(session, submission_id, item_id, body.points, body.comment, user)
    return _override_out(o)


@router.post(
    "/submissions/{submission_id}/items/{item_id}/override/undo", response_model=UndoneOut,
    summary="Undo an item's latest decision",
)
def undo_override(
    submission_id: IdPath,
    item_id: str,
    session: SessionDep,
    user: InstructorUser,
    decision: Annotated[int | None, Query(ge=1, le=MAX_ID, description=(
        "The audit entry id of the decision to undo: refused (409) unless it is still the "
        "latest one not undone. Omitted: the latest."))] = None,
) -> UndoneOut:
    """Undo the latest decision on one item not undone yet: the state before it comes back
    (the earlier override with its comment, or none: the machine's score). Undo again to step
    further back. Audited as `override.undo`.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 no such submission; 409
    nothing to undo, the latest change is a removal (not undone), or `decision` is not the
    latest decision."""
    target, now = undo.undo_latest(session, submission_id, item_id, decision, user)
    return UndoneOut(submission_id=submission_id, item_id=item_id, undone=target,
                     override=None if now is None else _override_out(now))


@router.delete(
    "/submissions/{submission_id}/items/{item_id}/override",
    status_code=status.HTTP_204_NO_CONTENT,
    summary="Remove an item's override",
)
def delete_override(
    submission_id: IdPath, item_id: str, session: SessionDep, user: InstructorUser
) -> None:
    """The machine's score counts again for the item.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 no such submission, or no
    override on that item."""
    service.delete_override(session, submission_id, item_id, user)


@router.get(
    "/assignments/{slug}/exemplars", response_model=list[ExemplarOut],
    summary="List graded examples",
)
def exemplars(slug: str, session: SessionDep, user: InstructorUser) -> list[ExemplarOut]:
    """Answers a human scored (overrides), per item: examples for calibrating the graders.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment."""
    return [ExemplarOut(**vars(e)) for e in service.exemplars(session, slug)]
