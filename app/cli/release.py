"""`gradeformer publish|schedule`: release grades and set an assignment's deadlines and limits."""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Annotated

import typer

from app.assignments import release
from app.assignments.schedule import Schedule
from app.cli.context import console, database, domain_errors, errors, fail
from app.db.base import utcnow
from app.db.models import CountedSubmission
from app.db.session import unit_of_work

_CLEAR = "none"
_NAMED_ITEMS = 10


def _moment(option: str, value: str) -> datetime | None:
    if value.lower() == _CLEAR:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise fail(f"--{option}: {value!r} is not an ISO 8601 date and time") from None
    if moment.tzinfo is None:
        raise fail(f"--{option}: give a UTC offset, e.g. 2026-12-01T23:59:00+00:00")
    return moment


def _describe(schedule: Schedule) -> str:
    def at(moment: datetime | None) -> str:
        return "-" if moment is None else moment.isoformat(timespec="minutes")

    limit = "no limit" if schedule.max_submissions is None else str(schedule.max_submissions)
    return (
        f"{schedule.slug}: opens {at(schedule.opens_at)}, due {at(schedule.due_at)}, "
        f"late until {at(schedule.late_until)} at {schedule.late_penalty_percent}% per day, "
        f"submissions: {limit}, counts: {schedule.counts.value}, "
        f"grades published: {at(schedule.grades_published_at)}"
    )


def publish(
    assignment: Annotated[str, typer.Option(help="Assignment slug")],
    withdraw: Annotated[bool, typer.Option(help="Withdraw published grades")] = False,
) -> None:
    """Publish the grades: students then see what the rubric releases."""
    with database() as sessions, domain_errors(), unit_of_work(sessions) as session:
        waiting: list[release.WaitingItem] = []
        if withdraw:
            row = release.withdraw_grades(session, assignment, None)
        else:
            waiting = release.still_in_review(session, assignment)
            row = release.publish_grades(session, assignment, None, utcnow())
        summary = _describe(Schedule.of(row))
    if waiting:
        items = ", ".join(f"{w.item_id} {w.waiting}" for w in waiting[:_NAMED_ITEMS])
        more = f" and {len(waiting) - _NAMED_ITEMS} more item(s)" \
            if len(waiting) > _NAMED_ITEMS else ""
        errors.print(f"warning: {sum(w.waiting for w in waiting)} answer(s) are still in "
                     f"review ({items}{more}): their students see them as being reviewed and "
                     "no total until they are decided.", markup=False, soft_wrap=True)
    console.print(summary)


def schedule(
    assignment: Annotated[str, typer.Option(help="Assignment slug")],
    opens: Annotated[str | None, typer.Option(help="ISO date-time with offset, or none")] = None,
    due: Annotated[str | None, typer.Option(help="ISO date-time with offset, or none")] = None,
    late_until: Annotated[
        str | None, typer.Option(help="Hard cut-off for late uploads, or none")
    ] = None,
    penalty: Annotated[str | None, typer.Option(help="Percent lost per day late")] = None,
    max_submissions: Annotated[
        int | None, typer.Option(help="Uploads per student; 0 for no limit")
    ] = None,
    counts: Annotated[CountedSubmission | None, typer.Option(help="Which one counts")] = None,
) -> None:
    """Show or change an assignment's dates, late policy and submission limit."""
    fields: dict[str, object] = {}
    if opens is not None:
        fields["opens_at"] = _moment("opens", opens)
    if due is not None:
        fields["due_at"] = _moment("due", due)
    if late_until is not None:
        fields["late_until"] = _moment("late-until", late_until)
    if penalty is not None:
        try:
            fields["late_penalty_percent"] = Decimal(penalty)
        except InvalidOperation:
            raise fail(f"--penalty: {penalty!r} is not a number") from None
    if max_submissions is not None:
        fields["max_submissions"] = max_submissions or None
    if counts is not None:
        fields["counts"] = counts
    with database() as sessions, domain_errors(), unit_of_work(sessions) as session:
        row = release.update_schedule(session, assignment, fields, None)
        summary = _describe(Schedule.of(row))
    console.print(summary)
