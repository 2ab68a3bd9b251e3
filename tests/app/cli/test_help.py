"""`gradeformer --help` is printed without typer (app/cli/help.py): it must be the text typer
prints for the same program, at any width, in colour or not."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import types

import pytest

from app.cli import help
from app.cli.main import own_help
from tests.shared_data import REPO

FAST = "import sys; sys.argv = ['gradeformer', '--help']; from app.cli.main import main; main()"
TYPER = "import sys; sys.argv = ['gradeformer', '--help']; from app.cli.program import app; app()"


def _output(code: str, **env: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "OPENBLAS_NUM_THREADS": "1", **env},
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


@pytest.mark.parametrize("columns", ["44", "80", "131"])
@pytest.mark.parametrize("colour", [{}, {"FORCE_COLOR": "1"}, {"TERMINAL_WIDTH": "67"}])
def test_the_help_is_typers_text(columns: str, colour: dict[str, str]) -> None:
    fast = _output(FAST, COLUMNS=columns, **colour)
    assert "grade-table" in re.sub(r"\x1b\[[0-9;]*m", "", fast)
    assert fast == _output(TYPER, COLUMNS=columns, **colour)


def test_the_help_imports_neither_typer_nor_pydantic() -> None:
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "app.cli.main", "--help"],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Usage: python -m app.cli.main [OPTIONS] COMMAND [ARGS]..." in done.stdout
    imported = {
        line.split("|")[-1].strip()
        for line in done.stderr.splitlines()
        if line.startswith("import time:")
    }
    assert "app.cli.help" in imported
    assert not {"typer", "click", "pydantic", "app.cli.program"} & imported


@pytest.mark.parametrize(
    ("argv", "environ", "fast"),
    [
        (["--help"], {}, True),
        ([], {}, False),  # no arguments: typer's help and exit status 2
        (["grade", "--help"], {}, False),
        (["--help", "grade"], {}, False),
        (["--help"], {"_GRADEFORMER_COMPLETE": "bash_complete"}, False),
        (["--help"], {"_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION": "1"}, False),
    ],
)
def test_only_the_programs_own_help_skips_typer(
    argv: list[str], environ: dict[str, str], fast: bool
) -> None:
    assert own_help(argv, environ) is fast


@pytest.mark.parametrize(
    ("package", "argv0"),
    [
        (None, "/usr/local/bin/gradeformer"),
        ("", "gradeformer"),
        ("app.cli", "/src/app/cli/main.py"),
        ("app.cli", "/src/app/cli/__main__.py"),
    ],
)
def test_the_program_is_named_as_click_names_it(
    monkeypatch: pytest.MonkeyPatch, package: str | None, argv0: str
) -> None:
    from typer._click.utils import _detect_program_name

    main = types.ModuleType("__main__")
    main.__package__ = package
    monkeypatch.setitem(sys.modules, "__main__", main)
    monkeypatch.setattr(sys, "argv", [argv0, "--help"])
    assert help.program_name() == _detect_program_name()


def test_every_commands_help_flows_its_paragraphs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each command's help (every command and subcommand in the table, imported) is printed
    paragraph by paragraph, wrapped at the terminal's width: a docstring's own line breaks do
    not cut a paragraph into short lines (typer's rich help kept them after the first)."""
    from typer import _click as click

    from app.cli.commands import COMMANDS
    from app.cli.program import load_command

    monkeypatch.setattr("app.cli.program.GRADING_NOW", frozenset())  # no fork server here
    def helps(command: click.Command) -> list[str]:
        subs = getattr(command, "commands", {}).values()
        return [command.help or ""] + [h for sub in subs for h in helps(sub)]

    texts = [h for name in COMMANDS for h in helps(load_command(name))]  # type: ignore[arg-type]
    assert len(texts) > len(COMMANDS)
    cut = [t for t in texts for p in t.split("\n\n") if "\n" in p and not p.startswith("\b")]
    assert not cut, cut[:3]
    wide = _output("import sys; sys.argv = ['gradeformer', 'import', '--help']; "
                   "from app.cli.main import main; main()", COLUMNS="200")
    assert "so is a symbolic link: only what was handed in is read." in wide
