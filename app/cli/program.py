"""The `gradeformer` program as a typer group whose commands are imported on first use (the
command table and the summaries its help lists: app/cli/commands.py)."""

from __future__ import annotations

import atexit
import gc
import importlib
import inspect
from typing import Any

import typer
from typer import _click as click  # the click that typer vendors (its command types)
from typer.core import TyperCommand, TyperGroup

from app.cli.commands import COMMANDS, GRADING_NOW, SUMMARIES, SUMMARY
from app.cli.context import collector_paused


def load_command(name: str) -> click.Command | None:
    """The click command `name`, its module imported now; None for an unknown name."""
    target = COMMANDS.get(name)
    if target is None:
        return None
    module, attribute = target
    if name in GRADING_NOW:
        from app.grading.preload import start_fork_server_now

        start_fork_server_now()
    with collector_paused():  # the command's imports
        found = getattr(importlib.import_module(module), attribute)
    if isinstance(found, typer.Typer):
        group = typer.main.get_group(found)
        group.name = name
        return _reflowed(group)
    single = typer.Typer(add_completion=False)
    single.command(name)(found)
    return _reflowed(typer.main.get_command(single))


def reflow(help_text: str) -> str:
    """A docstring's paragraphs each on one line: typer's rich help keeps a paragraph's line
    breaks after the first (`... and so is a symbolic` / `link: ...` at 80 columns); a
    paragraph that opens with click's `\\b` keeps them."""
    paragraphs = inspect.cleandoc(help_text).split("\n\n")
    return "\n\n".join(p if p.startswith("\b") else " ".join(p.split("\n"))
                       for p in paragraphs)


def _reflowed(command: click.Command) -> click.Command:
    if command.help:
        command.help = reflow(command.help)
    for sub in getattr(command, "commands", {}).values():
        _reflowed(sub)
    return command


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
    help=SUMMARY,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    cls=LazyCommands,
)


@app.callback()
def _root() -> None:
    # A callback makes the app a group even though no command is registered up front.
    pass
