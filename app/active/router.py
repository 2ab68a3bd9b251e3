"""Active grading as JSON (instructors): the item's progress and estimate, the next proposal,
a decision."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path
from pydantic import BaseModel, Field

from app.active import assignment as across
from app.active import service
from app.auth.dependencies import InstructorUser
from app.deps import MAX_ID, SessionDep, SettingsDep
from app.points import JsonPoints

router = APIRouter(prefix="/api/v1", tags=["active grading"])

ItemId = Annotated[str, Path(min_length=1, max_length=100)]


class ProposalOut(BaseModel):
    submission_id: int
    student: str | None
    answer: str
    suggested_points: JsonPoints
    error_probability: float
    reason: str = Field(description="settles (similar answers follow it) | least sure | audit "
                        "(a uniform draw that keeps the estimate honest)")
    settles: int = Field(description="Other undecided answers nearly the same (cosine >= 0.9).")
    weight: float = Field(description="The probable error its decision is expected to fix: its "
                          "own error probability and part of its close undecided neighbours' "
                          "(an audit's: its own).")


class EstimateOut(BaseModel):
    undecided: int
    expected_wrong: float = Field(description="Probably wrong among the undecided answers.")
    estimated_error: float = Field(description="expected_wrong / undecided.")
    ratio: float = Field(description="Errors seen / predicted on held-back decisions (shrunk).")
    checks: int
    done: bool
    least_sure: float = Field(description="The highest error probability among the undecided "
                              "answers (0 with none): once it is low, the decisions are better "
                              "spent on another item.")


class AnswerOut(BaseModel):
    submission_id: int
    student: str | None
    answer: str
    suggested_points: JsonPoints
    error_probability: float
    decision: JsonPoints | None
    points: JsonPoints
    comment: str | None


class ProgressOut(BaseModel):
    item_id: str
    question_id: str
    title: str
    max_points: JsonPoints
    tolerance: JsonPoints
    target: float = Field(description="The question's risk-control error target.")
    total: int
    decided: int
    rescored: bool
    estimate: EstimateOut
    summary: str
    proposal: ProposalOut | None
    answers: list[AnswerOut] | None = None


class DecisionIn(BaseModel):
    submission_id: Annotated[int, Field(ge=1, le=MAX_ID)]
    points: JsonPoints
    feedback: str = Field(default="", max_length=5000)


class DecisionOut(BaseModel):
    submission_id: int
    points: JsonPoints
    changed: bool = Field(description="False: the same decision was there already.")
    progress: ProgressOut


def _proposal(state: service.ItemState) -> ProposalOut | None:
    if state.proposal is None:
        return None
    answer = state.answer(state.proposal.key)
    return ProposalOut(submission_id=answer.submission_id, student=answer.student,
                       answer=answer.answer, suggested_points=answer.suggested_points,
                       error_probability=answer.error_probability,
                       reason=state.proposal.reason, settles=state.proposal.settles,
                       weight=round(state.proposal.weight, 4))


def progress_out(state: service.ItemState, answers: bool) -> ProgressOut:
    e = state.estimate
    listed: list[AnswerOut] | None = None
    if answers:
        listed = [AnswerOut(points=a.points, **_fields(a)) for a in state.answers]
    return ProgressOut(
        item_id=state.item_id, question_id=state.question_id, title=state.title,
        max_points=state.max_points, tolerance=state.tolerance, target=state.target,
        total=len(state.answers), decided=state.decided, rescored=state.rescored,
        estimate=EstimateOut(undecided=e.undecided, expected_wrong=round(e.expected_wrong, 4),
                             estimated_error=round(e.share, 4), ratio=round(e.ratio, 4),
                             checks=e.checks, done=e.done,
                             least_sure=round(e.least_sure, 4)),
        summary=service.progress_line(state), proposal=_proposal(state), answers=listed)


def _fields(answer: service.ActiveAnswer) -> dict[str, Any]:
    return {"submission_id": answer.submission_id, "student": answer.student,
            "answer": answer.answer, "suggested_points": answer.suggested_points,
            "error_probability": answer.error_probability, "decision": answer.decision,
            "comment": answer.comment}


PREFIX = "/assignments/{slug}/items/{item_id}/active"


@router.get(PREFIX, response_model=ProgressOut, summary="Active grading: progress and estimate")
def progress(slug: str, item_id: ItemId, session: SessionDep, settings: SettingsDep,
             user: InstructorUser, answers: bool = True) -> ProgressOut:
    """Every counted answer of a written item with the machine's current suggestion (re-scored
    with the decisions as exemplars) or the decision, the estimated error among the undecided
    answers against the question's target, and the next proposal.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment or item;
    422 the item is not written."""
    state = service.item_state(session, slug, item_id, settings.grading_options())
    return progress_out(state, answers)


@router.get(f"{PREFIX}/next", response_model=ProgressOut,
            summary="Active grading: the next answer to decide")
def next_decision(slug: str, item_id: ItemId, session: SessionDep, settings: SettingsDep,
                  user: InstructorUser) -> ProgressOut:
    """The answer whose decision settles most (or that the machine is least sure of, or a
    uniform audit draw), with the progress; `proposal` is null once every answer is decided.

    Errors: as for the progress."""
    state = service.item_state(session, slug, item_id, settings.grading_options())
    return progress_out(state, answers=False)


@router.post(f"{PREFIX}/decisions", response_model=DecisionOut,
             summary="Active grading: decide one answer")
def decide(slug: str, item_id: ItemId, body: DecisionIn, session: SessionDep,
           settings: SettingsDep, user: InstructorUser) -> DecisionOut:
    """The instructor's points (and optional feedback) for one answer: an audited override,
    an exemplar of the item from now on; the undecided answers are re-scored. Idempotent per
    answer: the same decision again changes nothing, other points replace it.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment, item or
    answer (not a counted submission's); 422 points outside the item's range or not in
    hundredths, or the item is not written."""
    decision = service.decide(session, slug, item_id, body.submission_id, body.points,
                              body.feedback, user, settings.grading_options())
    return DecisionOut(submission_id=decision.submission_id, points=decision.points,
                       changed=decision.changed, progress=progress_out(decision.state, False))


class ItemStandingOut(BaseModel):
    item_id: str
    question_id: str
    title: str
    total: int
    decided: int
    target: float
    estimated_error: float
    expected_wrong: float
    least_sure: float
    done: bool


class PooledOut(BaseModel):
    undecided: int
    expected_wrong: float = Field(description="Probably wrong among the undecided answers of "
                                  "every written item (each item's estimate, summed).")
    estimated_error: float = Field(description="expected_wrong / undecided.")
    target: float = Field(description="The items' targets weighted by their undecided answers.")
    checks: int = Field(description="Held-back checks over all the items.")
    done: bool
    least_sure: float


class AssignmentProgressOut(BaseModel):
    slug: str
    total: int
    decided: int
    estimate: PooledOut
    summary: str
    items: list[ItemStandingOut]
    next: ProgressOut | None = Field(description="The item whose proposal comes next (one "
                                     "with fewer than 7% of its answers decided, else the one "
                                     "whose least sure undecided answer is the least sure of "
                                     "all), with that proposal; null once every answer is "
                                     "decided.")


class AssignmentDecisionIn(DecisionIn):
    item_id: ItemId


class AssignmentDecisionOut(BaseModel):
    item_id: str
    submission_id: int
    points: JsonPoints
    changed: bool
    progress: AssignmentProgressOut


def assignment_out(state: across.AssignmentState) -> AssignmentProgressOut:
    e = state.estimate
    items = [ItemStandingOut(
        item_id=s.item_id, question_id=s.question_id, title=s.title, total=len(s.answers),
        decided=s.decided, target=s.target, estimated_error=round(s.estimate.share, 4),
        expected_wrong=round(s.estimate.expected_wrong, 4),
        least_sure=round(s.estimate.least_sure, 4), done=s.estimate.done) for s in state.items]
    return AssignmentProgressOut(
        slug=state.slug, total=state.total, decided=state.decided,
        estimate=PooledOut(undecided=e.undecided, expected_wrong=round(e.expected_wrong, 4),
                           estimated_error=round(e.share, 4), target=round(e.target, 4),
                           checks=e.checks, done=e.done, least_sure=round(e.least_sure, 4)),
        summary=across.progress_line(state), items=items,
        next=None if state.next is None else progress_out(state.next, answers=False))


ACROSS = "/assignments/{slug}/active"


@router.get(ACROSS, response_model=AssignmentProgressOut,
            summary="Active grading across the assignment's written items")
def assignment_progress(slug: str, session: SessionDep, settings: SettingsDep,
                        user: InstructorUser) -> AssignmentProgressOut:
    """Every written item's standing, the pooled estimate among the undecided answers of all of
    them against the targets, and the next proposal across the items: the proposal of an item
    with fewer than 7% of its answers decided, else of the item whose least sure undecided
    answer is the least sure of all.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment; 422 the
    assignment has no written item."""
    return assignment_out(across.assignment_state(session, slug, settings.grading_options()))


@router.post(f"{ACROSS}/decisions", response_model=AssignmentDecisionOut,
             summary="Active grading across items: decide one answer")
def assignment_decide(slug: str, body: AssignmentDecisionIn, session: SessionDep,
                      settings: SettingsDep, user: InstructorUser) -> AssignmentDecisionOut:
    """A decision on one answer of one written item (as the item's own decisions endpoint:
    audited, idempotent), answered with the assignment's progress and the next proposal.

    Errors: as for the item's decisions, and 422 the assignment has no written item."""
    decision, state = across.decide(session, slug, body.item_id, body.submission_id,
                                    body.points, body.feedback, user,
                                    settings.grading_options())
    return AssignmentDecisionOut(item_id=body.item_id, submission_id=decision.submission_id,
                                 points=decision.points, changed=decision.changed,
                                 progress=assignment_out(state))
