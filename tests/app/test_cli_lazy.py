"""`gradeformer grade-table` starts without the web and database stack (app/cli/main.py)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
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
