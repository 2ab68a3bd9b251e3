"""`gradeformer grade FILE ...` run without typer: importing typer and click and building the
command's parameters is about a twentieth of an offline grade's start (docs/benchmarks.md).

Only a command line that typer reads in one way is run here: one FILE, each option at most
once, every value given and not starting with `-`, a `--format` typer accepts, and paths that
typer's checks pass (an existing path that cannot be read is typer's error). Anything else
(`--help`, `--`, an unknown, repeated or incomplete option, shell completion) returns None and
typer parses it, with its own messages. tests/app/cli/test_fast.py checks on generated command
lines that every line read here is read by typer into the same values. What typer does around
a command is done the same way: the collector frozen at exit (app/cli/program.py) and the exits
of typer's main loop (a failure's code, 130 for an interrupt, 1 for a closed pipe)."""

from __future__ import annotations

import atexit
import errno
import gc
import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, NoReturn

# option -> the grade_file argument it sets; flags set True or False
VALUED = {"--assignment": "assignment", "--format": "format", "--rubric": "rubric",
          "--handout": "handout"}
FLAGS = {"--show": ("show", True), "--no-show": ("show", False)}
FORMATS = ("table", "json")
PATHS = ("file", "rubric")


def _readable_or_absent(value: str) -> bool:
    """What typer's path check lets through: a path that does not exist, or one it can read."""
    try:
        os.stat(value)
    except OSError:
        return True
    except ValueError:
        return False
    return os.access(value, os.R_OK)


def _value(name: str, value: str) -> bool:
    if value.startswith("-") or value == "":
        return False
    if name == "format":
        return value in FORMATS
    return name not in PATHS or _readable_or_absent(value)


def grade_arguments(argv: Sequence[str], environ: Mapping[str, str]
                    ) -> dict[str, str | bool] | None:
    """`grade`'s arguments as strings (the options given only), or None for a command line
    typer is to read. `argv` follows `grade`."""
    if any(k.startswith("_") and k.endswith("_COMPLETE") for k in environ):
        return None
    found: dict[str, str | bool] = {}
    rest = list(argv)
    while rest:
        token = rest.pop(0)
        if token in FLAGS:
            name, flag = FLAGS[token]
            value: str | bool = flag
        elif token.split("=", 1)[0] in VALUED:
            option, equals, given = token.partition("=")
            name = VALUED[option]
            if not equals:
                if not rest:
                    return None
                given = rest.pop(0)
            if not _value(name, given):
                return None
            value = given
        elif not token.startswith("-") and _value("file", token):
            name, value = "file", token
        else:
            return None
        if name in found:
            return None
        found[name] = value
    return found if "file" in found else None


def grade_values(arguments: Mapping[str, str | bool]) -> dict[str, Any]:
    """The values typer converts the arguments to: paths and the output format."""
    from app.cli.grade import OutputFormat

    values: dict[str, Any] = dict(arguments)
    for name in PATHS:
        if name in values:
            values[name] = Path(str(values[name]))
    if "format" in values:
        values["format"] = OutputFormat(values["format"])
    return values


def run_grade(arguments: Mapping[str, str | bool]) -> NoReturn:
    """`grade_file` with the arguments typer would give it, ended as typer ends a command."""
    from app.cli.grade import grade_file

    atexit.register(gc.freeze)  # as app/cli/program.py: the last collection walks nothing
    try:
        grade_file(**grade_values(arguments))
    except KeyboardInterrupt:
        sys.exit(130)
    except EOFError:
        _aborted()
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        _pacified()
        sys.exit(1)
    except Exception as exc:
        _ended(exc)
        raise
    sys.exit(0)


def _pacified() -> None:
    """A closed pipe on stdout: typer's main quiets the streams' last flush, and so does this."""
    from typer._click.utils import PacifyFlushWrapper

    sys.stdout = PacifyFlushWrapper(sys.stdout)
    sys.stderr = PacifyFlushWrapper(sys.stderr)


def _aborted() -> NoReturn:
    from typer import rich_utils
    from typer._click import echo
    from typer.core import HAS_RICH

    echo(file=sys.stderr)
    if HAS_RICH:
        rich_utils.rich_abort_error()
    else:
        echo("Aborted!", file=sys.stderr)
    sys.exit(1)


def _ended(exc: Exception) -> None:
    """A command's own end (`raise fail(...)`: typer's Exit) exits with its code, a click error
    is shown as typer shows it; typer is imported only then."""
    from typer import rich_utils
    from typer._click.exceptions import ClickException
    from typer.core import HAS_RICH
    from typer.exceptions import Exit

    if isinstance(exc, Exit):
        sys.exit(exc.exit_code)
    if isinstance(exc, ClickException):
        if HAS_RICH:
            rich_utils.rich_format_error(exc)
        else:
            exc.show()
        sys.exit(exc.exit_code)
