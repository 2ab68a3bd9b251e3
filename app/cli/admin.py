"""`gradeformer db|rubric|token`: schema, rubrics and API tokens."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from app.assignments.service import load_rubric_text, rubric_versions
from app.auth import service as auth
from app.cli.context import console, database, domain_errors, errors, fail, settings
from app.cli.offline import rubric_paths
from app.db import migrate
from app.db.session import unit_of_work
from app.editions.policy import declared_risk
from graders.engine import unrun_items
from graders.rubric import RubricError, battery_notes, battery_problems, load_rubric
from graders.rubric_files import RubricFiles, take_files

UNRUN_HOW = ("A code battery runs the program and grades it automatically: docs/rubrics.md, "
             "'A battery for any NumPy function'.")

db_app = typer.Typer(help="Database schema.", no_args_is_help=True)
rubric_app = typer.Typer(help="Rubric files.", no_args_is_help=True)
token_app = typer.Typer(help="API tokens.", no_args_is_help=True)


@db_app.command("upgrade")
def db_upgrade(revision: Annotated[str, typer.Argument()] = "head") -> None:
    """Create or migrate the database to the newest schema."""
    url = settings().database_url
    migrate.upgrade(url, revision)
    console.print(f"database at {revision}: {url.split('@')[-1]}")


@rubric_app.command("validate")
def rubric_validate(files: Annotated[list[Path], typer.Argument(exists=False)]) -> None:
    """Check rubric files (a folder: its rubric files, not the batteries beside them): schema,
    references between items (carry-forward), point bounds.

    Every problem is one line, `FILE: line N: path: what is wrong`; the exit code is 1 when any
    file has a problem, 0 otherwise. A `note` line (exit code unchanged) names the items of a
    code question that read the program's text without running it (they always need review),
    and a battery's checks that look at one case drawn per submission.
    """
    bad = 0
    for path in rubric_paths(files):
        try:
            loaded = load_rubric(path)
            raw = path.read_bytes()
            late = battery_problems(raw, loaded.rubric)
            if late:
                raise RubricError(str(path), late)
            take_files(loaded)  # what `rubric load` keeps: a folder over the bound is refused
        except RubricError as exc:
            bad += 1
            for problem in exc.problems:
                # One line per problem whatever the terminal's width; the text is the file's
                # own (ids, messages), so no markup of it.
                errors.print(f"{path}: {problem}", soft_wrap=True, markup=False, highlight=False)
            continue
        rubric = loaded.rubric
        items = sum(len(q.items) for q in rubric.questions)
        console.print(
            f"ok {path}: {rubric.slug}, {len(rubric.questions)} questions, "
            f"{items} items, {rubric.max_points} points, hash {loaded.content_hash[:12]}",
            soft_wrap=True, markup=False, highlight=False,
        )
        risk = declared_risk(rubric, None)
        if risk is not None:
            console.print(f"note {path}: {risk}", soft_wrap=True, markup=False, highlight=False)
        for note in battery_notes(raw, rubric):
            console.print(f"note {path}: {note}", soft_wrap=True, markup=False,
                          highlight=False)
        for question, unrun in unrun_items(rubric):
            console.print(
                f"note {path}: question {question.id} is answered with code, but "
                f"{', '.join(i.id for i in unrun)} {'reads' if len(unrun) == 1 else 'read'} "
                f"its text without running it: always sent to review. {UNRUN_HOW}",
                soft_wrap=True, markup=False, highlight=False,
            )
    if bad:
        raise typer.Exit(1)


@rubric_app.command("load")
def rubric_load(files: Annotated[list[Path], typer.Argument()]) -> None:
    """Store rubric files as assignments (a changed file becomes the current version); a folder
    stands for its rubric files. A file whose code batteries do not build is refused, with the
    problems `rubric validate` prints, and nothing is loaded."""
    paths = rubric_paths(files)
    refused = [f"{path}: {problem}" for path in paths for problem in _battery_problems(path)]
    for line in refused:
        errors.print(line, soft_wrap=True, markup=False, highlight=False)
    if refused:
        raise typer.Exit(1)
    with database() as sessions, domain_errors():
        for path in paths:
            try:
                text = path.read_bytes().decode("utf-8")
            except (OSError, UnicodeDecodeError) as exc:
                raise fail(f"cannot read {path}: {exc}") from None
            with unit_of_work(sessions) as session:
                result = load_rubric_text(session, text, str(path))
                slug, version = result.assignment.slug, result.version.content_hash[:12]
            state = "loaded" if result.changed else "unchanged"
            console.print(f"{slug}: {state} (rubric {version})")


def _battery_problems(path: Path) -> list[str]:
    """The batteries of a rubric file that do not build (its other problems are the loader's
    to report, in its own words)."""
    try:
        return battery_problems(path.read_bytes(), load_rubric(path).rubric)
    except (RubricError, OSError):
        return []


@rubric_app.command("list")
def rubric_list(
    all_versions: Annotated[
        bool, typer.Option("--all", help="Every version, not only the current one.")
    ] = False,
    files: Annotated[
        bool, typer.Option("--files", help="Under each version, the battery files it keeps.")
    ] = False,
) -> None:
    """Which rubric version each assignment grades with, and where it came from. A version
    keeps the files of its code batteries as they were loaded and is graded with them
    (`with N battery files`); one loaded before they were kept reads them beside its file."""
    with database() as sessions, unit_of_work(sessions) as session:
        for assignment, versions in rubric_versions(session):
            for v in versions:
                if not (all_versions or v.is_current):
                    continue
                mark = "current" if v.is_current else "       "
                synced = (
                    ""
                    if v.synced_at is None
                    else f", synced from disk {v.synced_at:%Y-%m-%d %H:%M}"
                )
                kept = [] if v.battery_files is None else \
                    RubricFiles.decode(v.battery_files).listing()
                # One line per version, never wrapped: scripts read it as well as people.
                console.print(
                    f"{assignment.slug}  {mark}  version {v.label} (#{v.id}, "
                    f"{v.content_hash[:12]})  from {v.source_name}, loaded "
                    f"{v.created_at:%Y-%m-%d %H:%M}{synced}"
                    f"{f', with {len(kept)} battery files' if kept else ''}",
                    soft_wrap=True,
                    markup=False,
                    highlight=False,
                )
                for name, size, digest in kept if files else []:
                    console.print(f"    {name}  {size:,} bytes  sha256 {digest[:12]}",
                                  soft_wrap=True, markup=False, highlight=False)


@token_app.command("create")
def token_create(
    role: Annotated[str, typer.Option(help="student, instructor or admin")],
    name: Annotated[str, typer.Option(help="The user's name (a student's id)")],
) -> None:
    """Create a token; it is printed once, as the last line."""
    with database() as sessions, domain_errors(), unit_of_work(sessions) as session:
        issued = auth.create_token(session, name, role)
        summary = f"token {issued.record.id} for {issued.user.name} ({issued.user.role})"
    console.print(summary)
    print(issued.token)


@token_app.command("list")
def token_list(
    all_: Annotated[bool, typer.Option("--all", help="Include revoked")] = False,
) -> None:
    with database() as sessions, unit_of_work(sessions) as session:
        table = Table("id", "user", "role", "prefix", "created", "revoked")
        for t in auth.list_tokens(session, include_revoked=all_):
            table.add_row(
                str(t.id),
                t.user.name,
                t.user.role,
                t.prefix + "…",
                t.created_at.strftime("%Y-%m-%d %H:%M"),
                "" if t.revoked_at is None else t.revoked_at.strftime("%Y-%m-%d %H:%M"),
            )
    console.print(table)


@token_app.command("revoke")
def token_revoke(token_id: Annotated[int, typer.Argument()]) -> None:
    with database() as sessions, domain_errors(), unit_of_work(sessions) as session:
        auth.revoke_token(session, token_id)
    console.print(f"token {token_id} revoked")
