"""What CLI commands share: settings, a database session factory, console output."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING, Any

import typer

from app.errors import DomainError
from app.sanitize import clean

if TYPE_CHECKING:  # imported when used: `grade-table` starts without SQLAlchemy (cli/main.py)
    from rich.console import Console
    from sqlalchemy.orm import Session, sessionmaker

    from app.settings import Settings

    console: Console
    errors: Console


@cache
def _console(stderr: bool) -> Console:
    from rich.console import Console

    return Console(stderr=stderr, highlight=False)


def __getattr__(name: str) -> Any:
    """`console` (stdout) and `errors` (stderr), made on first use: a command that prints
    JSON (`grade --format json`) or only the help starts without rich's console."""
    if name in ("console", "errors"):
        return _console(name == "errors")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def settings() -> Settings:
    with collector_paused():  # the first call imports pydantic-settings
        from app.settings import get_settings

    return get_settings()


@contextmanager
def database() -> Iterator[sessionmaker[Session]]:
    from sqlalchemy.exc import OperationalError, ProgrammingError

    from app.db.session import make_engine, make_sessionmaker

    engine = make_engine(settings().database_url)
    try:
        yield make_sessionmaker(engine)
    except (OperationalError, ProgrammingError) as exc:
        # a new SQLite file or an empty server: "no such table" (SQLite), "relation ... does
        # not exist" (PostgreSQL) was a traceback; only `serve` migrates on its own
        if "no such table" in str(exc) or "does not exist" in str(exc):
            raise fail("the database has no schema yet (or an older one): run "
                       "`gradeformer db upgrade`") from None
        raise
    finally:
        engine.dispose()


def safe(text: str, limit: int = 2000) -> str:
    """Text from a document (feedback, errors, names) for a console line or table cell: no
    terminal escapes or unencodable characters, and no rich markup of its own."""
    from rich.markup import escape

    return escape(clean(text, limit))


def fail(message: str, code: int = 1) -> typer.Exit:
    # One line whatever the terminal's width: scripts and logs read it as one.
    _console(True).print(f"[red]error:[/red] {safe(message)}", markup=True, soft_wrap=True)
    return typer.Exit(code)


@contextmanager
def domain_errors() -> Iterator[None]:
    """Domain errors end the command with their message, not a traceback."""
    try:
        yield
    except DomainError as exc:
        raise fail(exc.detail) from None


# Start-ups frozen now (startup_frozen): what a pause allocates meanwhile is frozen with them.
_frozen = 0


@contextmanager
def collector_paused() -> Iterator[None]:
    """Start-up (a command's imports, a rubric's grader modules) allocates a great many
    objects that all live on: the collector's passes meanwhile would free nothing (about 0.2 s
    of `regrade`'s start). Nor does a pass over them afterwards: they join the oldest objects
    without one (frozen with them while start-up is frozen, else in the oldest generation, which
    only a full pass walks). The collector is left as it was."""
    enabled = gc.isenabled()
    frozen = _frozen > 0  # not gc.get_freeze_count(): it walks every frozen object
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()  # moves every tracked object, without walking any
        if not frozen:
            gc.unfreeze()  # into the oldest generation
        if enabled:
            gc.enable()


@contextmanager
def startup_frozen() -> Iterator[None]:
    """Bulk work after start-up: what start-up built (modules, classes, SQLAlchemy's and
    pydantic's tables: most of the process's objects) lives on, so the collector's full passes
    skip it meanwhile instead of walking it again each time; collected as before afterwards."""
    global _frozen
    gc.freeze()
    _frozen += 1
    try:
        yield
    finally:
        _frozen -= 1
        gc.unfreeze()
