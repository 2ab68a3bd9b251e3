"""The `gradeformer` command.

Each command's module is imported only when that command runs (or when the help lists them
all): `gradeformer grade-table` then starts without FastAPI, SQLAlchemy or the service layers
(docs/benchmarks.md, grade-table section; tests/app/cli/test_lazy.py).
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
from typing import Any

# pydantic looks for plugins in the entry points of every installed distribution when it builds
# its first model (importlib.metadata over site-packages: 40-70 ms of each command's start);
# gradeformer uses none. An operator who wants one (an observability plugin) sets the variable
# to anything else, "" included.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

import typer
from typer import _click as click  # the click that typer vendors (its command types)
from typer.core import TyperCommand, TyperGroup

from app.cli.context import collector_paused

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


def load_command(name: str) -> click.Command | None:
    """The click command `name`, its module imported now; None for an unknown name."""
    target = COMMANDS.get(name)
    if target is None:
        return None
    module, attribute = target
    with collector_paused():  # the command's imports
        found = getattr(importlib.import_module(module), attribute)
    if isinstance(found, typer.Typer):
        group = typer.main.get_group(found)
        group.name = name
        return group
    single = typer.Typer(add_completion=False)
    single.command(name)(found)
    return typer.main.get_command(single)


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


class LazyCommands(TyperGroup):
    """A command group whose commands are imported on first use; its help lists them by their
    summaries, importing none."""

    listing = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        return list(COMMANDS)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        self.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.listing = False

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        command = self.commands.get(cmd_name)
        if command is None and self.listing and cmd_name in SUMMARIES:
            return TyperCommand(cmd_name, short_help=SUMMARIES[cmd_name])
        if command is None:
            command = load_command(cmd_name)
            if command is not None:
                self.commands[cmd_name] = command
        return command


class Program(typer.Typer):
    """The `gradeformer` program (its entry point calls it; tests invoke its commands instead).

    The process ends with the command: its last collection would walk every object it still
    holds (the modules, SQLAlchemy's and pydantic's tables) only to free memory the system
    takes back anyway (about 0.3 s after a regrade of 10,000). So everything is frozen once
    the command's exit handlers have run (registered before them, the freeze runs after them);
    what reference counting frees still is, as the modules are torn down."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        atexit.register(gc.freeze)
        return super().__call__(*args, **kwargs)


app = Program(
    name="gradeformer",
    help="Automated grading for transformer homework.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    cls=LazyCommands,
)


@app.callback()
def _root() -> None:
    # A callback makes the app a group even though no command is registered up front.
    pass


if __name__ == "__main__":
    app()
