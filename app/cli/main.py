"""The `gradeformer` command.

Each command's module is imported only when that command runs (or when the help lists them
all): `gradeformer grade-table` then starts without FastAPI, SQLAlchemy or the service layers
(docs/benchmarks.md, grade-table section; tests/app/cli/test_lazy.py). `gradeformer --help`
imports not even typer (app/cli/help.py): the command table is app/cli/commands.py, the typer
program app/cli/program.py. `gradeformer grade FILE ...` imports not even typer when typer would
read its command line in only one way (app/cli/fast.py).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from app.cli.commands import COMMANDS, GRADING_NOW, PAUSED_THROUGHOUT, SUMMARIES, SUMMARY

# pydantic looks for plugins in the entry points of every installed distribution when it builds
# its first model (importlib.metadata over site-packages: 40-70 ms of each command's start);
# gradeformer uses none. An operator who wants one (an observability plugin) sets the variable
# to anything else, "" included.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

if TYPE_CHECKING:
    from app.cli.program import LazyCommands, Program, app, load_command


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
    """The entry point: the program's own help printed and a plain `grade FILE` line run
    without typer (app/cli/fast.py), anything else by it."""
    if own_help(sys.argv[1:], os.environ):
        from app.cli import help

        help.print_help(SUMMARY, SUMMARIES)
        return None
    if sys.argv[1:2] and sys.argv[1] in GRADING_NOW:
        # Its grading pool's fork server starts first, beside typer's import and the command's
        # own (load_command would start it only once they are done: about 0.15 s later).
        from app.grading.preload import start_fork_server_now

        start_fork_server_now()
    from app.cli.collector import collector_paused

    if sys.argv[1:2] == ["grade"]:
        from app.cli.fast import grade_arguments, run_grade

        arguments = grade_arguments(sys.argv[2:], os.environ)
        if arguments is not None:
            with collector_paused():  # to the exit (PAUSED_THROUGHOUT)
                run_grade(arguments)
    with collector_paused():  # typer, click and pydantic: start-up objects that all live on
        from app.cli.program import app

        if sys.argv[1:2] and sys.argv[1] in PAUSED_THROUGHOUT:
            return app()  # the collector paused to the exit
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
