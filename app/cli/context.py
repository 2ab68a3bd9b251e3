"""What CLI commands share: settings, a database session factory, console output."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import TYPE_CHECKING, Any

# Where the commands find them (app/cli/collector.py: the entry point uses them before typer).
from app.cli.collector import collector_paused as collector_paused
from app.cli.collector import startup_frozen as startup_frozen
from app.errors import DomainError
from app.sanitize import clean

if TYPE_CHECKING:  # imported when used: `grade-table` starts without SQLAlchemy (cli/main.py)
    import typer
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
    import typer  # a failing command only: `grade FILE` runs without typer (app/cli/fast.py)

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
