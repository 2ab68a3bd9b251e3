"""`gradeformer --help` without typer: the same panels typer prints (typer.rich_utils'
`rich_format_help` for the program's group), built from the command table in app/cli/main.py
with the few rich modules they need.

typer's own help imports typer, click, pydantic (typer converts parameters with it) and rich's
Markdown and traceback renderers (with markdown-it, Pygments and attrs): about three quarters
of the command's start. tests/app/cli/test_help.py checks that both print the same text.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from collections.abc import Mapping
from typing import ClassVar

from rich.align import Align
from rich.columns import Columns
from rich.console import Console
from rich.highlighter import RegexHighlighter
from rich.padding import Padding
from rich.panel import Panel
from rich.table import Table
from rich.text import Text
from rich.theme import Theme

# typer.rich_utils' styles and highlighters, for the same colours on a terminal.
THEME = {
    "option": "bold cyan",
    "switch": "bold green",
    "negative_option": "bold magenta",
    "negative_switch": "bold red",
    "types": "bold yellow",
    "types_sep": "dim",
    "usage": "yellow",
}
# The root's options (typer's completion options, then click's help option): name, help.
OPTIONS = (
    ("--install-completion", "Install completion for the current shell."),
    (
        "--show-completion",
        "Show completion for the current shell, to copy it or customize the installation.",
    ),
    ("--help", "Show this message and exit."),
)


class OptionHighlighter(RegexHighlighter):
    highlights: ClassVar[list[str]] = [
        r"(^|\W)(?P<switch>\-\w+)(?![a-zA-Z0-9])",
        r"(^|\W)(?P<option>\-\-[\w\-]+)(?![a-zA-Z0-9])",
        r"(?P<types>\<[^\>]+\>)",
        r"(?P<usage>Usage: )",
    ]


class TypesHighlighter(RegexHighlighter):
    highlights: ClassVar[list[str]] = [
        r"^(?P<types_sep>(\[|<))",
        r"(?P<types_sep>\|)",
        r"(?P<types_sep>(\]|>)$)",
    ]


def program_name() -> str:
    """click's name for the program in the usage line: the script's, or `python -m module`."""
    main = sys.modules["__main__"]
    path = sys.argv[0]
    package = getattr(main, "__package__", None)
    if package in (None, ""):
        return os.path.basename(path)
    name = os.path.splitext(os.path.basename(path))[0]
    module = package if name == "__main__" else f"{package}.{name}"
    return f"python -m {module.lstrip('.')}"


def usage(prog: str) -> str:
    """click's usage line, wrapped as its help formatter wraps it."""
    width = max(min(shutil.get_terminal_size().columns, 80) - 2, 50)
    prefix, args = f"Usage: {prog} ", "[OPTIONS] COMMAND [ARGS]..."
    if width >= len(prefix) + 20:
        return textwrap.fill(
            args,
            width,
            initial_indent=prefix,
            subsequent_indent=" " * len(prefix),
            replace_whitespace=False,
        )
    indent = " " * (len("Usage: ") + 4)
    return (
        prefix
        + "\n"
        + textwrap.fill(
            args, width, initial_indent=indent, subsequent_indent=indent, replace_whitespace=False
        )
    )


def _console() -> Console:
    width = os.environ.get("TERMINAL_WIDTH")
    forced = any(os.environ.get(k) for k in ("GITHUB_ACTIONS", "FORCE_COLOR", "PY_COLORS"))
    return Console(
        theme=Theme(THEME),
        highlighter=OptionHighlighter(),
        color_system="auto",
        force_terminal=False
        if os.environ.get("_TYPER_FORCE_DISABLE_TERMINAL")
        else (True if forced else None),
        width=int(width) if width else None,
    )


def _panel(table: Table, title: str) -> Panel:
    return Panel(table, border_style="dim", title=title, title_align="left")


def _grid(highlight: bool) -> Table:
    """A borderless table of typer's help panels (its options or commands grid)."""
    return Table(
        highlight=highlight,
        show_header=False,
        expand=True,
        box=None,
        show_lines=False,
        leading=0,
        row_styles=None,
        pad_edge=False,
        padding=(0, 1),
    )


def print_help(summary: str, summaries: Mapping[str, str]) -> None:
    """The program's help: usage, `summary`, its options, then each command's summary."""
    console = _console()
    highlight = OptionHighlighter()
    console.print(Padding(highlight(usage(program_name())), 1), style="bold")
    console.print(Padding(Align(highlight(Text.from_markup(summary)), pad=False), (0, 1, 1, 1)))
    options = _grid(highlight=True)
    types = TypesHighlighter()
    for name, text in OPTIONS:
        options.add_row(
            highlight(name),
            highlight(""),
            highlight(""),
            highlight(""),
            types(Text("<bool>", style="bold yellow", overflow="fold")),
            Columns([highlight(Text.from_markup(text))]),
        )
    console.print(_panel(options, "Options"))
    commands = _grid(highlight=False)
    commands.add_column(style="bold cyan", no_wrap=True, width=max(map(len, summaries)))
    commands.add_column("Description", justify="left", no_wrap=False, ratio=10)
    for name, text in summaries.items():
        commands.add_row(Text(name), highlight(Text.from_markup(text)))
    console.print(_panel(commands, "Commands"))
    console.file.write("\n")  # click's echo of the (empty) rest of the help
