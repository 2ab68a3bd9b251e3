"""A staff upload is always filed under a student (issue #31, scope 1): over HTTP and from the
CLI the same rule as the web app's bulk upload (app/submissions/filing.py): the student named,
else the file's name, else a 422 problem+json that says how to name one; with a roster loaded,
only a student on it. Nothing reaches the exports as "submission-N"."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from app.cli.main import app
from graders.rubric import BUNDLED_RUBRICS
from tests.app.cli.test_main import SLUG, env, run
from tests.app.conftest import Api

__all__ = ["env"]  # the fixture, used by name

UPLOAD = f"/api/v1/assignments/{SLUG}/submissions"
ANSWERS = {"answers": {"B1": "d_head = 64"}}
PROBLEM = "application/problem+json"


def _student(api: Api, response_json: dict[str, object]) -> object:
    got = api.client.get(f"/api/v1/submissions/{response_json['id']}", headers=api.auth("prof"))
    assert got.status_code == 200, got.text
    return got.json()["student"]


def test_a_staff_upload_without_a_student_or_a_file_name_is_refused(api: Api) -> None:
    before = len(api.client.get(UPLOAD, headers=api.auth("prof")).json())
    nameless = api.client.post(UPLOAD, json=ANSWERS, headers=api.auth("prof"))
    assert nameless.status_code == 422
    assert nameless.headers["content-type"].startswith(PROBLEM)
    detail = nameless.json()["detail"]
    assert "No student" in detail and "?student=" in detail and "alice.txt" in detail
    # A document's own student_id names no one either (staff upload other people's files).
    claimed = api.client.post(UPLOAD, json={"student_id": "mallory", **ANSWERS},
                              headers=api.auth("root"))
    assert claimed.status_code == 422
    assert len(api.client.get(UPLOAD, headers=api.auth("prof")).json()) == before


def test_a_staff_upload_takes_its_student_from_the_parameter_or_the_file_name(api: Api) -> None:
    named = api.client.post(UPLOAD, params={"student": "erin"}, json=ANSWERS,
                            headers=api.auth("prof"))
    assert named.status_code == 202, named.text
    assert _student(api, named.json()) == "erin"
    from_file = api.client.post(
        UPLOAD, headers=api.auth("prof"),
        files={"file": ("C:\\scans\\dave.md", b"## B1\nd_head = 64\n", "text/markdown")})
    assert from_file.status_code == 202, from_file.text
    assert _student(api, from_file.json()) == "dave"
    # The parameter wins over the file's name.
    both = api.client.post(UPLOAD, params={"student": "frank"}, headers=api.auth("prof"),
                           files={"file": ("dave.md", b"## B1\nd_head = 64\n", "text/markdown")})
    assert _student(api, both.json()) == "frank"
    # A student's own upload is theirs, whatever its file is called.
    own = api.client.post(UPLOAD, headers=api.auth("alice"),
                          files={"file": ("bob.md", b"## B1\nd_head = 64\n", "text/markdown")})
    assert own.status_code == 202, own.text
    assert _student(api, own.json()) == "alice"


def test_with_a_roster_a_staff_upload_goes_only_to_a_listed_student(api: Api) -> None:
    other = "cs224n-attention"
    roster = "Student ID,Full Name\r\nzoe,Zoe Zed\r\n"
    put = api.client.put(f"/api/v1/assignments/{other}/roster", content=roster.encode(),
                         headers={**api.auth("prof"), "Content-Type": "text/csv"})
    assert put.status_code == 200, put.text
    url = f"/api/v1/assignments/{other}/submissions"
    document = b'{"answers": {"1a.i": "one key dominates"}}'
    stranger = api.client.post(url, headers=api.auth("prof"),
                               files={"file": ("xavier.json", document, "application/json")})
    assert stranger.status_code == 422
    assert stranger.headers["content-type"].startswith(PROBLEM)
    assert "xavier is not on the roster of cs224n-attention" in stranger.json()["detail"]
    named = api.client.post(url, params={"student": "yann"}, content=document,
                            headers={**api.auth("prof"), "Content-Type": "application/json"})
    assert named.status_code == 422 and "yann is not on the roster" in named.json()["detail"]
    listed = api.client.post(url, headers=api.auth("prof"),
                             files={"file": ("zoe.json", document, "application/json")})
    assert listed.status_code == 202, listed.text
    assert _student(api, listed.json()) == "zoe"


def test_the_cli_files_a_submission_under_the_file_name_or_refuses(env: Path,
                                                                    tmp_path: Path) -> None:
    run("db", "upgrade")
    run("rubric", "load", str(BUNDLED_RUBRICS / f"{SLUG}.yaml"))
    gina = tmp_path / "gina.json"
    gina.write_text(json.dumps(ANSWERS))
    assert "submission 1:" in run("submit", str(gina), "--assignment", SLUG)
    nameless = tmp_path / ".json"
    nameless.write_text(json.dumps(ANSWERS))
    refused = CliRunner().invoke(app, ["submit", str(nameless), "--assignment", SLUG])
    assert refused.exit_code == 2
    said = " ".join(refused.output.split())
    assert "No student" in said and "--student" in said
    assert "submission 2:" in run("submit", str(nameless), "--assignment", SLUG,
                                  "--student", "hal")
    exported = run("export", "--assignment", SLUG, "--format", "results")
    assert {s["student_id"] for s in json.loads(exported)["students"]} == {"gina", "hal"}
