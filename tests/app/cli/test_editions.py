"""The CLI's ways to declare a handout edition: `grade --handout` (the real command, in its own
process), `submit --handout` and `import --handout` (stored with the submission, kept by
`regrade`); a value the rubric does not grade ends the command with one line."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text
from typer.testing import CliRunner

from app.cli.main import app
from app.settings import get_settings
from tests.app.submissions.test_handout_editions import MARKDOWN, SLUG, rubric_text
from tests.shared_data import REPO


def _grade(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app.cli.main", "grade", *args],
                          capture_output=True, text=True, cwd=REPO, timeout=240, check=False)


def test_grade_offline_with_a_declared_edition(tmp_path: Path) -> None:
    rubric = tmp_path / "editions.yaml"
    rubric.write_text(rubric_text())
    sample = tmp_path / "s.md"
    sample.write_bytes(MARKDOWN)
    done = _grade(str(sample), "--rubric", str(rubric), "--handout", "2022", "--format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    items = {i["id"]: i for i in result["items"]}
    assert result["handout"] == "2022" and result["max_points"] == 3
    assert items["q2.value"]["max_points"] == 0 and "does not ask q2" in items["q2.value"][
        "feedback"]
    shown = _grade(str(sample), "--rubric", str(rubric), "--handout", "2022", "--show")
    assert shown.returncode == 0 and "handout 2022" in shown.stdout
    refused = _grade(str(sample), "--rubric", str(rubric), "--handout", "2030")
    assert refused.returncode == 2
    assert refused.stderr.strip().count("\n") == 0  # one line
    assert "'2030' is not an edition of this assignment (its editions: 2021, 2022)" in (
        refused.stderr)


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    db = tmp_path / "g.db"
    monkeypatch.setenv("GRADEFORMER_DATABASE_URL", f"sqlite:///{db}")
    monkeypatch.setenv("GRADEFORMER_WORKERS", "1")
    get_settings.cache_clear()
    yield db
    get_settings.cache_clear()


def _run(*args: str, code: int = 0) -> str:
    result = CliRunner().invoke(app, list(args))
    assert result.exit_code == code, (result.output, result.exception)
    return result.output


def _stored(db: Path) -> list[tuple[str | None, str, float]]:
    """Per submission: its edition, and q2's status and maximum in its current run."""
    engine = create_engine(f"sqlite:///{db}")
    try:
        with engine.connect() as connection:
            rows = connection.execute(text(
                "SELECT s.handout, i.status, i.max_points FROM submissions s "
                "JOIN grading_runs r ON r.submission_id = s.id AND r.is_current "
                "JOIN item_scores i ON i.run_id = r.id AND i.item_id = 'q2.value' "
                "ORDER BY s.id"))
            return [(h, st, float(m)) for h, st, m in rows]
    finally:
        engine.dispose()


def test_submit_and_import_store_the_edition_and_regrade_keeps_it(env: Path,
                                                                   tmp_path: Path) -> None:
    rubric = tmp_path / f"{SLUG}.yaml"
    rubric.write_text(rubric_text())
    _run("db", "upgrade")
    _run("rubric", "load", str(rubric))
    sample = tmp_path / "s.md"
    sample.write_bytes(MARKDOWN)
    assert "submission 1" in _run("submit", str(sample), "--assignment", SLUG,
                                  "--handout", "2022")
    out = _run("submit", str(sample), "--assignment", SLUG, "--handout", "1999", code=2)
    assert "not an edition of this assignment" in out and out.strip().count("\n") == 0
    inbox = tmp_path / "inbox"
    inbox.mkdir()
    (inbox / "s2.md").write_bytes(MARKDOWN)
    assert "imported 1 of 1" in _run("import", str(inbox), "--assignment", SLUG,
                                     "--handout", "2021")
    assert _stored(env) == [("2022", "missing", 0.0), ("2021", "graded", 1.0)]
    rubric.write_text(rubric_text(3, 2, 2))
    _run("rubric", "load", str(rubric))
    _run("regrade", "--assignment", SLUG)
    assert _stored(env) == [("2022", "missing", 0.0), ("2021", "graded", 2.0)]
