"""The `gradeformer` command.

Each command's module is imported only when that command runs (or when the help lists them
all): `gradeformer grade-table` then starts without FastAPI, SQLAlchemy or the service layers
(docs/benchmarks.md, grade-table section; tests/app/cli/test_lazy.py). `gradeformer --help`
imports not even typer (app/cli/help.py): this module holds the command table, the typer program
is app/cli/program.py.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

# pydantic looks for plugins in the entry points of every installed distribution when it builds
# its first model (importlib.metadata over site-packages: 40-70 ms of each command's start);
# gradeformer uses none. An operator who wants one (an observability plugin) sets the variable
# to anything else, "" included.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

if TYPE_CHECKING:
    from app.cli.program import LazyCommands, Program, app, load_command

SUMMARY = "Automated grading for transformer homework."

# Command name -> (module, attribute): a function becomes a command, a Typer a command group.
# In this order in the help (commands, then groups, as typer lists them).
COMMANDS: dict[str, tuple[str, str]] = {
    "serve": ("app.cli.ops", "serve"),
    "worker": ("app.cli.worker", "worker"),
    "grade": ("app.cli.grade", "grade"),
    "submit": ("app.cli.grading", "submit"),
    "import": ("app.cli.grading", "import_folder"),
    "regrade": ("app.cli.ops", "regrade"),
    "export": ("app.cli.ops", "export"),
    "doctor": ("app.cli.ops", "doctor"),
    "evaluate": ("app.cli.evaluate", "evaluate"),
    "publish": ("app.cli.release", "publish"),
    "schedule": ("app.cli.release", "schedule"),
    "grade-table": ("app.cli.grade_table", "grade_table"),
    "db": ("app.cli.admin", "db_app"),
    "rubric": ("app.cli.admin", "rubric_app"),
    "token": ("app.cli.admin", "token_app"),
    "roster": ("app.cli.roster", "roster_app"),
    "risk": ("app.cli.risk", "risk_app"),
}


# What `gradeformer --help` says of each command, so that listing them imports none of them
# (tests/app/cli/test_lazy.py checks each against the command's own help).
SUMMARIES: dict[str, str] = {
    "serve": "Run the API server (behind a reverse proxy in production: see the README).",
    "worker": "Run a Celery grading worker (the API enqueues with GRADEFORMER_EXECUTOR=celery).",
    "grade": "Grade one file offline: no database, no server.",
    "submit": "Store a submission in the database and grade it now.",
    "import": "Every file of FOLDER becomes a submission; the student id is the file name's stem.",
    "regrade": "Re-grade every stored submission with the current rubric (parallel, resumable).",
    "export": "The grades of an assignment: the gradebook CSV (one row per student, one column "
    "per question, the total, the roster's LMS ids), Canvas's import CSV, or "
    "results.json.",
    "doctor": "Which sandbox layers are active on this machine, and the policy they enforce.",
    "evaluate": "Grade every file of FOLDER that has a <stem>.grades.yaml and report the "
    "agreement.",
    "publish": "Publish the grades: students then see what the rubric releases.",
    "schedule": "Show or change an assignment's dates, late policy and submission limit.",
    "grade-table": "Grade a table of short answers (student,question,answer) against a rubric.",
    "db": "Database schema.",
    "rubric": "Rubric files.",
    "token": "API tokens.",
    "roster": "The class roster (student ids, names, LMS ids).",
    "risk": "Risk control: error targets and calibrated thresholds per question.",
}


def __getattr__(name: str) -> Any:
    """The typer program and its parts (`app`, `load_command`, ...), imported on first use."""
    if name in ("app", "load_command", "LazyCommands", "Program"):
        from app.cli import program

        return getattr(program, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# Where typer's help would differ from app/cli/help.py's: its test switch that changes the
# completion options.
TYPER_ONLY = ("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION",)


def own_help(argv: list[str], environ: Mapping[str, str]) -> bool:
    """Whether app/cli/help.py answers `argv` exactly as typer would."""
    completing = any(k.startswith("_") and k.endswith("_COMPLETE") for k in environ)
    return argv == ["--help"] and not completing and not any(k in environ for k in TYPER_ONLY)


def main() -> Any:
    """The entry point: the program's own help printed without typer, anything else by it."""
    if own_help(sys.argv[1:], os.environ):
        from app.cli import help

        help.print_help(SUMMARY, SUMMARIES)
        return None
    from app.cli.program import app

    return app()


__all__ = [
    "COMMANDS",
    "SUMMARIES",
    "SUMMARY",
    "LazyCommands",
    "Program",
    "app",
    "load_command",
    "main",
]


if __name__ == "__main__":
    main()
