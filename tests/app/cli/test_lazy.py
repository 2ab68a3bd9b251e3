"""`gradeformer grade-table` starts without the web and database stack (app/cli/main.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

from tests.shared_data import REPO

HEAVY = ("fastapi", "starlette", "sqlalchemy", "alembic", "uvicorn", "app.db", "app.settings")

RUBRIC = """
slug: quiz
title: Quiz
questions:
  - id: q1
    prompt: What does a stack do?
    items:
      - id: q1.a
        points: 2
        grader: written
        config:
          elements:
            - id: lifo
              patterns: ['last in,? first out', 'lifo']
"""


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-X", "importtime", "-m", "app.cli.main", *args],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=120,
                          check=False)


def _imported(stderr: str) -> set[str]:
    """Top-level and dotted module names from `-X importtime` lines."""
    found = set()
    for line in stderr.splitlines():
        match = re.match(r"import time:\s+\d+ \|\s+\d+ \|\s*(\S+)", line)
        if match:
            found.add(match.group(1))
    return found


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


def test_grade_table_imports_no_web_or_database_module(tmp_path: Path) -> None:
    (tmp_path / "rubric.yaml").write_text(RUBRIC)
    (tmp_path / "t.csv").write_text("student,question,answer\nann,q1,last in first out\n")
    done = _cli("grade-table", str(tmp_path / "t.csv"), "--rubric",
                str(tmp_path / "rubric.yaml"), "--no-progress")
    assert done.returncode == 0, done.stderr[-2000:]
    assert '"points": 2' in done.stdout
    modules = _imported(done.stderr)
    assert "graders.written.table" in modules  # the measurement sees the command's imports
    assert _heavy(modules) == []


def test_a_database_command_still_imports_its_stack(tmp_path: Path) -> None:
    # The lazy loading must not lose a command's imports: `db upgrade` needs SQLAlchemy.
    env_url = f"sqlite:///{tmp_path / 'g.db'}"
    env = dict(os.environ, GRADEFORMER_DATABASE_URL=env_url)
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "app.cli.main", "db",
                           "upgrade"], cwd=REPO, env=env, capture_output=True, text=True,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "sqlalchemy" in _imported(done.stderr)
    assert (tmp_path / "g.db").is_file()


def test_help_lists_every_command_and_unknown_names_fail() -> None:
    from app.cli.main import COMMANDS

    done = _cli("--help")
    assert done.returncode == 0
    for name in COMMANDS:
        assert re.search(rf"│ {re.escape(name)}\s", done.stdout), name
    wrong = _cli("no-such-command")
    assert wrong.returncode == 2
    assert "No such command" in wrong.stderr


# What the offline commands and the help must not import (issue #32): the web stack and the ORM.
# `app.settings` is allowed here (they read the operator's settings), the database layer is not.
WEB_OR_ORM = ("fastapi", "starlette", "uvicorn", "sqlalchemy", "alembic", "app.db",
              "app.submissions", "app.auth")


def _offline_env(tmp_path: Path) -> dict[str, str]:
    # The database URL names where the caches go; the offline commands never open it.
    return dict(os.environ, OPENBLAS_NUM_THREADS="1",
                GRADEFORMER_DATABASE_URL=f"sqlite:///{tmp_path / 'g.db'}")


def _run(tmp_path: Path, *args: str) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    done = subprocess.run([sys.executable, "-X", "importtime", "-m", "app.cli.main", *args],
                          cwd=REPO, env=_offline_env(tmp_path), capture_output=True, text=True,
                          timeout=300, check=False)
    return done, _imported(done.stderr)


def _web_or_orm(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in WEB_OR_ORM))


def test_offline_grade_imports_neither_the_web_stack_nor_the_orm(tmp_path: Path) -> None:
    doc = tmp_path / "answers.json"
    doc.write_text(json.dumps({"answers": {"b1.d_head": "64"}}))
    done, modules = _run(tmp_path, "grade", str(doc), "--assignment", "transformer-basics",
                         "--format", "json")
    assert done.returncode == 0, done.stderr[-2000:]
    items = {i["id"]: i for i in json.loads(done.stdout)["items"]}
    assert items["b1.d_head"]["points"] == items["b1.d_head"]["max_points"] > 0
    # what it did import (a command's own module is imported by importlib.import_module, which
    # `-X importtime` does not report; what that module imports it does)
    assert {"app.cli.offline", "graders.engine", "app.settings"} <= modules
    assert _web_or_orm(modules) == []
    # nor typer and click: a plain command line is run without them (app/cli/fast.py)
    assert not [m for m in modules if m.split(".")[0] in ("typer", "click")]
    assert not (tmp_path / "g.db").exists()


def test_help_and_evaluate_import_neither_the_web_stack_nor_the_orm(tmp_path: Path) -> None:
    done, modules = _run(tmp_path, "--help")
    assert done.returncode == 0, done.stderr[-2000:]
    assert "grade-table" in done.stdout and "app.cli.help" in modules
    assert _web_or_orm(modules) == []
    table = ("app.cli.main", "app.cli.commands", "app.cli.help")
    assert not any(m.startswith("app.cli.") and m not in table
                   for m in modules)  # the help lists the commands without importing them

    samples = tmp_path / "samples"
    samples.mkdir()
    (samples / "a.json").write_text(json.dumps({"answers": {"b1.d_head": "64"}}))
    (samples / "a.grades.yaml").write_text(
        "assignment: transformer-basics\ntotal: 4\ntotal_range: [0, 40]\n"
        "items: {b1.d_head: {points: 4, range: [4, 4]}}\n")
    done, modules = _run(tmp_path, "evaluate", str(samples), "--format", "json")
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout)["overall"]["items_within"] == 1
    assert "graders.evaluation" in modules and _web_or_orm(modules) == []


def test_the_help_says_what_each_command_says_of_itself() -> None:
    from app.cli.main import COMMANDS, SUMMARIES, load_command

    assert list(SUMMARIES) == list(COMMANDS)
    for name, summary in SUMMARIES.items():
        command = load_command(name)
        assert command is not None
        own = " ".join((command.short_help or command.help or "").split("\n\n")[0].split())
        assert own == summary, name


def test_the_storing_commands_import_no_web_framework() -> None:
    # `gradeformer submit|import` store through the services, which import no FastAPI: role
    # checks live in app/auth/roles.py, the request dependencies beside the routers.
    # The command's module, and what it imports once its grading processes are starting.
    code = ("import app.cli.grading, app.cli.offline, app.submissions.service, "
            "app.submissions.filing, app.submissions.upload, app.grading.local, rich.progress")
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code],
                          cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    modules = _imported(done.stderr)
    assert "app.submissions.service" in modules and "sqlalchemy" in modules
    assert not [m for m in modules if m == "fastapi" or m.startswith("fastapi.")]
