"""The secret code questions draw their inputs from: configured, or made once and kept beside
the database so that a regrade in another process reproduces the inputs."""

from __future__ import annotations

from pathlib import Path

from app.settings import Settings


def test_an_unset_secret_is_made_once_and_kept_beside_the_database(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'grades.db'}"
    first = Settings(database_url=url).grading_options()["code_input_secret"]
    again = Settings(database_url=url).grading_options()["code_input_secret"]
    assert first == again and len(first) >= 32
    assert (tmp_path / "code-input-secret").stat().st_mode & 0o077 == 0


def test_a_configured_secret_wins(tmp_path: Path) -> None:
    settings = Settings(database_url=f"sqlite:///{tmp_path / 'g.db'}",
                        code_input_secret="course-secret")
    assert settings.grading_options()["code_input_secret"] == "course-secret"
    assert not (tmp_path / "code-input-secret").exists()
