"""`gradeformer grade FILE` without typer (app/cli/fast.py): a command line it runs is one typer
reads into the same values; whatever else it leaves to typer."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from app.cli import grade_command
from app.cli.fast import grade_arguments, grade_values
from app.cli.program import app
from tests.shared_data import REPO

# What people type after `grade`, and what a slip gives: options with and without `=`, values
# that look like options, an empty value, a wrong case, the end-of-options marker, a second file.
TOKENS = ["--assignment", "--format", "--rubric", "--handout", "--show", "--no-show", "--help",
          "--", "-", "", "json", "table", "JSON", "--format=json", "--format=table",
          "--format=", "--assignment=transformer-basics", "--assignment=", "--show=1",
          "transformer-basics", "2022", "-x", "--assign", "--handout=2022", "a=b"]


def _defaults() -> dict[str, Any]:
    parameters = inspect.signature(grade_command.grade).parameters
    return {name: p.default for name, p in parameters.items()
            if p.default is not inspect.Parameter.empty}


def _typer_values(argv: list[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any] | None:
    """What typer hands the command for `grade argv`, or None when it refuses the line."""
    seen: list[dict[str, Any]] = []

    def record(file: Path, assignment: str | None, format: Any, rubric: Path | None,
               show: bool, handout: str | None) -> None:
        seen.append({"file": file, "assignment": assignment, "format": format,
                     "rubric": rubric, "show": show, "handout": handout})

    monkeypatch.setattr(grade_command, "grade_file", record)
    done = CliRunner().invoke(app, ["grade", *argv])
    return seen[0] if done.exit_code == 0 and seen else None


@pytest.fixture(scope="module")
def paths(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    folder = tmp_path_factory.mktemp("fast")
    (folder / "a.json").write_text("{}")
    return [str(folder / "a.json"), str(folder / "absent.json"), str(folder)]


@settings(max_examples=200, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_line_run_without_typer_is_read_by_typer_alike(
    data: st.DataObject, paths: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = data.draw(st.lists(st.sampled_from(TOKENS + paths), max_size=7))
    arguments = grade_arguments(argv, {})
    if arguments is None:
        return
    assert _typer_values(argv, monkeypatch) == {**_defaults(), **grade_values(arguments)}


def test_the_usual_lines_run_without_typer(paths: list[str]) -> None:
    file = paths[0]
    for argv in ([file, "--assignment", "transformer-basics"],
                 ["--format", "json", file, "--rubric", paths[0], "--show"],
                 [file, "--format=table", "--no-show", "--handout", "2022"]):
        assert grade_arguments(argv, {}) is not None, argv


def test_lines_typer_must_read_are_left_to_it(paths: list[str]) -> None:
    file = paths[0]
    for argv in ([file, "--help"], [file, "--", "--show"], [file, file],
                 [file, "--show", "--show"], [file, "--format", "JSON"], [file, "--rubric"],
                 [file, "--assignment", "-x"], ["--show"], []):
        assert grade_arguments(argv, {}) is None, argv
    completing = {"_GRADEFORMER_COMPLETE": "bash_complete"}
    assert grade_arguments([file, "--show"], completing) is None


def _both(args: list[str], tmp_path: Path) -> list[subprocess.CompletedProcess[str]]:
    """The command run by the entry point (without typer) and by typer itself."""
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1",
               GRADEFORMER_DATABASE_URL=f"sqlite:///{tmp_path / 'g.db'}")
    by_typer = ("import sys; sys.argv[0] = 'gradeformer'; from app.cli.program import app; "
                "app()")
    runs = [[sys.executable, "-m", "app.cli.main", "grade", *args],
            [sys.executable, "-c", by_typer, "grade", *args]]
    return [subprocess.run(argv, cwd=REPO, env=env, capture_output=True, text=True,
                           timeout=120, check=False) for argv in runs]


def test_output_and_exit_status_are_typers(tmp_path: Path) -> None:
    doc = tmp_path / "answers.json"
    doc.write_text(json.dumps({"answers": {"b1.d_head": "64", "b1.total": "3 x 589,824"}}))
    for args in ([str(doc), "--assignment", "transformer-basics", "--format", "json"],
                 [str(doc), "--assignment", "transformer-basics"],
                 [str(tmp_path / "absent.json"), "--assignment", "transformer-basics"],
                 [str(doc), "--assignment", "no-such-assignment"]):
        fast, typer = _both(args, tmp_path)
        assert (fast.returncode, fast.stdout, fast.stderr) == \
            (typer.returncode, typer.stdout, typer.stderr), args
