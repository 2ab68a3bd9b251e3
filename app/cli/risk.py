"""`gradeformer risk show|set|recalibrate`: per-question risk control from instructor grades."""

from __future__ import annotations

from typing import Annotated

import typer

from app.assignments.service import current_rubric
from app.calibration import service
from app.calibration.summary import ItemRisk, risk_control
from app.cli.context import console, database, domain_errors, safe
from app.db.session import unit_of_work
from graders.written.settings import DEFAULT_TARGET

risk_app = typer.Typer(help="Risk control: error targets and calibrated thresholds per question.",
                       no_args_is_help=True)


def _percent(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _print(rows: list[ItemRisk]) -> None:
    for r in rows:
        console.print(
            f"{safe(r.question)} {safe(r.item)}: target {r.target:.1%}, threshold "
            f"{r.threshold:g} ({'calibrated' if r.calibrated else 'default'}), "
            f"instructor-graded {r.instructor_graded}, exemplars {r.exemplars}, measured error "
            f"{_percent(r.measured_error)} on {r.measured_on}, automated "
            f"{_percent(r.automated_share)}. {safe(r.note)}"
        )


@risk_app.command()
def show(slug: Annotated[str, typer.Argument(help="Assignment slug")]) -> None:
    """Per written question: target, threshold in effect, measured error, automated share."""
    with database() as sessions, domain_errors(), unit_of_work(sessions) as session:
        rows = risk_control(session, current_rubric(session, slug))
    _print(rows)


@risk_app.command("set")
def set_target(
    slug: Annotated[str, typer.Argument(help="Assignment slug")],
    question: Annotated[str | None, typer.Argument(
        help="Question id; without it, the whole assignment's default")] = None,
    target: Annotated[float, typer.Option(
        min=service.MIN_TARGET, max=service.MAX_TARGET,
        help="error allowed among auto-graded answers")] = DEFAULT_TARGET,
) -> None:
    """Set the error target (of a question or the whole assignment) and recalibrate."""
    with database() as sessions, domain_errors(), unit_of_work(sessions) as session:
        service.set_target(session, slug, question, target, None)
        rows = risk_control(session, current_rubric(session, slug))
    _print(rows)


@risk_app.command()
def recalibrate(slug: Annotated[str, typer.Argument(help="Assignment slug")]) -> None:
    """Relearn exemplars and thresholds from the instructor's grades."""
    with database() as sessions, domain_errors(), unit_of_work(sessions) as session:
        service.recalibrate(session, slug, None)
        rows = risk_control(session, current_rubric(session, slug))
    _print(rows)
