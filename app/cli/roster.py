"""`gradeformer roster import|list`: the class list and its LMS identifiers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from app.cli.context import console, database, domain_errors, fail, safe
from app.db.session import unit_of_work
from app.roster import service
from app.roster.csvfile import MAX_BYTES
from app.sanitize import clean

roster_app = typer.Typer(help="The class roster (student ids, names, LMS ids).",
                         no_args_is_help=True)


@roster_app.command("import")
def roster_import(
    target: Annotated[str, typer.Argument(help='"course", or an assignment slug')],
    file: Annotated[Path, typer.Argument(help="The roster CSV")],
) -> None:
    """Replace the course's (or one assignment's) roster with a CSV; a bad row stores nothing."""
    try:
        with file.open("rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except OSError as exc:
        raise fail(f"cannot read {file}: {exc.strerror}") from None
    with database() as sessions, domain_errors(), unit_of_work(sessions) as session:
        result = service.import_roster(session, target, raw)
    ignored = (
        f"; ignored columns: {', '.join(result.ignored_columns)}" if result.ignored_columns else ""
    )
    console.print(f"{result.scope}: {result.students} students imported{safe(ignored)}",
                  soft_wrap=True, markup=False, highlight=False)


@roster_app.command("list")
def roster_list(
    target: Annotated[str, typer.Argument(help='"course", or an assignment slug')] = "course",
) -> None:
    """The roster, one student per line (tab-separated: id, name, email, SIS ids, section)."""
    with database() as sessions, domain_errors(), unit_of_work(sessions) as session:
        rows = [
            (r.student_id, r.name, r.email, r.sis_user_id, r.sis_login_id, r.section)
            for r in service.roster_of(session, target)
        ]
    for row in rows:
        # Plain print: a console would expand the tabs that separate the fields.
        print("\t".join(clean(v, 300).replace("\t", " ").replace("\n", " ") for v in row))
