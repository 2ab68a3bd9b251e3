"""Answer groups as JSON (instructors): list an item's groups, decide one group at once."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field

from app.auth.dependencies import InstructorUser
from app.deps import MAX_ID, SessionDep, SettingsDep
from app.errors import InvalidInput
from app.groups import service
from app.points import JsonPoints

router = APIRouter(prefix="/api/v1", tags=["answer groups"])

GroupId = Annotated[str, Path(min_length=1, max_length=64, pattern=r"^[0-9a-f]+$")]
ItemId = Annotated[str, Path(min_length=1, max_length=100)]


class MemberOut(BaseModel):
    submission_id: int
    student: str | None
    answer: str
    points: JsonPoints
    suggested_points: JsonPoints
    machine_status: str
    confidence: float
    feedback: str
    needs_review: bool
    decided: bool
    comment: str | None
    disputed: str  # why the group's decision may not fit this member ("" if it does)


class SuggestionOut(BaseModel):
    points: JsonPoints
    count: int


class GroupOut(BaseModel):
    id: str
    method: str = Field(description="value | expression | behaviour | text | similar | missing")
    signature: str = Field(description="What the members share: a value, verdicts, or text.")
    size: int
    representative: str
    representative_submission: int
    needs_review: int
    decided: int
    suggestions: list[SuggestionOut]
    members: list[MemberOut]


class ItemGroupsOut(BaseModel):
    item_id: str
    title: str
    grader: str
    max_points: JsonPoints
    similarity: str
    needs_review: int
    groups: list[GroupOut]


class DecisionIn(BaseModel):
    accept: bool = Field(
        default=False, description="Give each member the machine's own suggestion.")
    points: JsonPoints | None = Field(
        default=None, description="Points for every member (when not accepting).")
    comment: str = Field(default="", max_length=5000)
    exclude: list[Annotated[int, Field(ge=1, le=MAX_ID)]] = Field(
        default_factory=list, max_length=100_000, description="Members left undecided.")
    replace_decided: bool = Field(
        default=False, description="Also replace earlier decisions on members.")
    disputed: Literal["refuse", "hold", "confirm"] = Field(
        default="refuse", description=(
            "Members the machine judged otherwise than the group (`disputed` in the group), "
            "when `points` would give them more than their own suggestion: refuse the decision "
            "(409 naming them), hold them back undecided, or confirm them too."))


class DecisionOut(BaseModel):
    group_id: str
    item_id: str
    decided: list[int]
    excluded: list[int]
    kept: list[int]
    held_back: list[int]


def _group_out(g: service.AnswerGroup) -> GroupOut:
    return GroupOut(
        id=g.id, method=g.method, signature=g.signature, size=g.size,
        representative=g.representative, representative_submission=g.representative_submission,
        needs_review=g.needs_review, decided=g.decided,
        suggestions=[SuggestionOut(points=p, count=n) for p, n in g.suggestions],
        members=[MemberOut(**vars(m)) for m in g.members],
    )


@router.get(
    "/assignments/{slug}/items/{item_id}/groups", response_model=ItemGroupsOut,
    summary="An item's answer groups",
)
def list_groups(
    slug: str, item_id: ItemId, session: SessionDep, settings: SettingsDep, user: InstructorUser
) -> ItemGroupsOut:
    """The counted answers to one rubric item in groups (same value, same behaviour on the
    tests, same or near-identical text), most answers needing review first.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment or item."""
    found = service.item_groups(session, slug, item_id, settings.resolved_embedding_cache_dir())
    return ItemGroupsOut(
        item_id=found.item_id, title=found.title, grader=found.grader,
        max_points=found.max_points, similarity=found.similarity,
        needs_review=found.needs_review, groups=[_group_out(g) for g in found.groups],
    )


@router.get(
    "/assignments/{slug}/items/{item_id}/groups/{group_id}", response_model=GroupOut,
    summary="One answer group with its members",
)
def get_group(
    slug: str,
    item_id: ItemId,
    group_id: GroupId,
    session: SessionDep,
    settings: SettingsDep,
    user: InstructorUser,
) -> GroupOut:
    """One group with its members.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment, item or
    group (groups are recomputed: a group id changes when its members do)."""
    found = service.item_groups(session, slug, item_id, settings.resolved_embedding_cache_dir())
    return _group_out(service.find_group(found, group_id))


@router.post(
    "/assignments/{slug}/items/{item_id}/groups/{group_id}/decision", response_model=DecisionOut,
    summary="Decide a whole answer group",
)
def decide_group(
    slug: str,
    item_id: ItemId,
    group_id: GroupId,
    body: DecisionIn,
    session: SessionDep,
    settings: SettingsDep,
    user: InstructorUser,
) -> DecisionOut:
    """Grade the whole group with one decision: one audited override per member (kept across
    regrades), except excluded members and, unless asked, members already decided.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment, item or
    group; 409 disputed members the points would raise (see `disputed`); 422 both or neither
    of `accept` and `points`, or points outside the item's range."""
    if body.accept == (body.points is not None):
        raise InvalidInput("Give either `accept: true` or `points`, not both or neither.")
    decision = service.decide(
        session, slug, item_id, group_id, user,
        points=None if body.accept else body.points, comment=body.comment,
        exclude=body.exclude, replace_decided=body.replace_decided, disputed=body.disputed,
        cache_dir=settings.resolved_embedding_cache_dir(),
    )
    return DecisionOut(**vars(decision))
