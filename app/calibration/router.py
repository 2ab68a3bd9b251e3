"""Risk control per written question: error targets, calibrated thresholds, exemplars
(instructors)."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from app.assignments.service import current_rubric
from app.auth.dependencies import InstructorUser
from app.calibration import service
from app.calibration.summary import ItemRisk, risk_control
from app.deps import SessionDep

router = APIRouter(prefix="/api/v1", tags=["risk control"])


class TargetIn(BaseModel):
    target: float = Field(
        ge=service.MIN_TARGET,
        le=service.MAX_TARGET,
        description="Error allowed among auto-graded answers (0.05: at most 5% of them wrong).",
    )


class ItemRiskOut(BaseModel):
    item: str
    question: str
    title: str
    target: float
    instructor_graded: int
    exemplars: int
    threshold: float
    calibrated: bool
    default_threshold: float
    calibrated_on: int
    expected_error: float | None
    measured_error: float | None
    measured_on: int
    automated_share: float | None
    note: str


def _out(rows: list[ItemRisk]) -> list[ItemRiskOut]:
    return [ItemRiskOut(**vars(r)) for r in rows]


def _summary(session: SessionDep, slug: str) -> list[ItemRiskOut]:
    return _out(risk_control(session, current_rubric(session, slug)))


@router.get(
    "/assignments/{slug}/risk", response_model=list[ItemRiskOut],
    summary="Risk control per written item",
)
def get_risk(slug: str, session: SessionDep, user: InstructorUser) -> list[ItemRiskOut]:
    """Per written item: the error target, the auto-grade threshold in effect (calibrated
    from the instructor's grades, or the default while there are too few), the error measured
    among auto-graded answers the instructor graded, the automated share and exemplar count.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment."""
    return _summary(session, slug)


@router.put(
    "/assignments/{slug}/risk/target", response_model=list[ItemRiskOut],
    summary="Set the assignment's error target",
)
def put_assignment_target(
    slug: str, body: TargetIn, session: SessionDep, user: InstructorUser
) -> list[ItemRiskOut]:
    """Set the error target of every question of the assignment that has no target of its
    own, and recalibrate; later grading and regrades use the new thresholds.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment;
    422 a target outside the allowed range."""
    service.set_target(session, slug, None, body.target, user)
    return _summary(session, slug)


@router.put("/assignments/{slug}/risk/questions/{question}/target",
            response_model=list[ItemRiskOut], summary="Set one question's error target")
def put_question_target(
    slug: str, question: str, body: TargetIn, session: SessionDep, user: InstructorUser
) -> list[ItemRiskOut]:
    """Set one question's error target and recalibrate; later grading and regrades use the
    new threshold.

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment or
    question; 422 a target outside the allowed range."""
    service.set_target(session, slug, question, body.target, user)
    return _summary(session, slug)


@router.post(
    "/assignments/{slug}/risk/recalibrate", response_model=list[ItemRiskOut],
    summary="Relearn thresholds and exemplars",
)
def recalibrate(slug: str, session: SessionDep, user: InstructorUser) -> list[ItemRiskOut]:
    """Relearn exemplars and thresholds from the instructor's grades and the current machine
    results (after a rubric change and regrade, for example).

    Errors: 401 no or an unknown token; 403 not an instructor; 404 unknown assignment."""
    service.recalibrate(session, slug, user)
    return _summary(session, slug)
