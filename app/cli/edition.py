"""`gradeformer edition set|clear|list`: the handout edition staff decide is graded."""

from __future__ import annotations

from typing import Annotated

import typer

from app.cli.context import console, database, domain_errors
from app.db.session import unit_of_work
from app.editions import service
from app.sanitize import clean

edition_app = typer.Typer(
    help="The handout edition graded: staff's, per assignment or per student.",
    no_args_is_help=True)

STUDENT_HELP = "One student's edition (default: the assignment's, for everyone else)"


def _report(change: service.EditionChange) -> None:
    who = f"student {change.student}" if change.student else "every student without their own"
    if change.handout is not None:
        line = f"{who} is graded under handout {change.handout}"
    elif change.student is not None:
        line = (f"{who} has no edition of their own: graded under the assignment's, else under "
                "the one each upload declares")
    else:
        line = f"{who} is graded under the edition each upload declares"
    console.print(clean(f"{change.assignment}: {line}"), soft_wrap=True, markup=False,
                  highlight=False)
    if change.resubmitted:
        count = len(change.resubmitted)
        console.print(
            clean(f"{count} stored submission{'s' if count != 1 else ''} now graded under "
                 f"another edition: their grades change when you regrade: "
                 f"gradeformer regrade --assignment {change.assignment}"),
            soft_wrap=True, markup=False, highlight=False)


@edition_app.command("set")
def edition_set(
    assignment: Annotated[str, typer.Argument(help="Assignment slug")],
    handout: Annotated[str, typer.Argument(help="One of the rubric's `handouts`")],
    student: Annotated[str | None, typer.Option(help=STUDENT_HELP)] = None,
) -> None:
    """Grade the assignment (or one student) under HANDOUT, whatever the uploads declare."""
    with database() as sessions, domain_errors(), unit_of_work(sessions) as session:
        change = service.set_edition(session, assignment, student, handout)
    _report(change)


@edition_app.command("clear")
def edition_clear(
    assignment: Annotated[str, typer.Argument(help="Assignment slug")],
    student: Annotated[str | None, typer.Option(help=STUDENT_HELP)] = None,
) -> None:
    """Staff no longer decide (the assignment's, or one student's): back to the declaration."""
    with database() as sessions, domain_errors(), unit_of_work(sessions) as session:
        change = service.set_edition(session, assignment, student, None)
    _report(change)


@edition_app.command("list")
def edition_list(assignment: Annotated[str, typer.Argument(help="Assignment slug")]) -> None:
    """The assignment's edition and each student's (tab-separated), then any warning."""
    with database() as sessions, domain_errors(), unit_of_work(sessions) as session:
        found = service.editions_of(session, assignment)
    print(f"*\t{clean(found.fixed or '-')}")
    for row in found.students:
        print(f"{clean(row.student)}\t{clean(row.handout)}")
    if found.warning:
        console.print(clean(f"warning: {found.warning}"), soft_wrap=True, markup=False,
                      highlight=False)
