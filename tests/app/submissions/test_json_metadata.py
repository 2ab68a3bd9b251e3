"""Top-level JSON keys starting with `_` are metadata: every way in accepts them, none grades or
shows them, and the stored upload keeps them byte for byte. Any other unknown key is refused."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli.main import app
from app.settings import get_settings
from graders.rubric import BUNDLED_RUBRICS
from tests.app.conftest import Api
from tests.shared_data import REPO

SLUG = "transformer-basics"
UPLOAD = f"/api/v1/assignments/{SLUG}/submissions"
METADATA = {"_source": {"repo": "someone/homework", "commit": "abc123"}, "_lms_id": 42}
ANSWERS = {"b1.d_head": "64", "b1.per_matrix": "589824"}


def _document(**extra: object) -> bytes:
    return json.dumps({**METADATA, "answers": ANSWERS, **extra}).encode()


def test_upload_accepts_metadata_keys_stores_them_and_shows_them_to_no_one(api: Api) -> None:
    raw = _document()
    response = api.client.post(
        f"{UPLOAD}?wait=true", content=raw, headers={**api.auth("alice"),
                                                     "content-type": "application/json"},
    )
    assert response.status_code == 201, response.text
    submission = response.json()["id"]
    staff = api.client.get(f"/api/v1/submissions/{submission}", headers=api.auth("prof")).json()
    assert staff["sha256"] == hashlib.sha256(raw).hexdigest() and staff["size"] == len(raw)
    items = {i["id"]: i for i in staff["items"]}
    assert items["b1.d_head"]["points"] == 4  # the answers were graded as if alone
    student = api.client.get(f"/api/v1/submissions/{submission}", headers=api.auth("alice"))
    assert student.status_code == 200
    assert "_source" not in student.text and "someone/homework" not in student.text


def test_upload_still_refuses_an_unknown_key_without_the_underscore(api: Api) -> None:
    response = api.client.post(
        UPLOAD, content=_document(grade=100),
        headers={**api.auth("alice"), "content-type": "application/json"},
    )
    assert response.status_code == 422, response.text
    assert "unexpected top-level keys: grade" in response.json()["detail"]


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


def test_import_and_submit_accept_metadata_and_refuse_other_keys(env: Path,
                                                                  tmp_path: Path) -> None:
    _run("db", "upgrade")
    _run("rubric", "load", str(BUNDLED_RUBRICS / f"{SLUG}.yaml"))
    folder = tmp_path / "inbox"
    folder.mkdir()
    (folder / "s1.json").write_bytes(_document())
    (folder / "s2.json").write_bytes(_document(grade=100))
    out = _run("import", str(folder), "--assignment", SLUG)
    assert "imported 1 of 2 files" in out and "grade" in out
    single = tmp_path / "s3.json"
    single.write_bytes(_document())
    assert "submission" in _run("submit", str(single), "--assignment", SLUG)


def test_grade_offline_accepts_metadata_keys(tmp_path: Path) -> None:
    sample = tmp_path / "s.json"
    sample.write_bytes(_document())
    done = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "grade", str(sample), "--assignment", SLUG,
         "--format", "json"],
        capture_output=True, text=True, cwd=REPO, timeout=240, check=False,
    )
    assert done.returncode == 0, done.stderr
    items = {i["id"]: i for i in json.loads(done.stdout)["items"]}
    assert items["b1.d_head"]["points"] == 4
    assert "someone/homework" not in done.stdout
