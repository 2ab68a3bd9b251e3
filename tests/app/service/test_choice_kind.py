"""A multiple-choice quiz (grader kind `choice`) over HTTP: the operator's rubric folder holds
the quiz, a JSON export of answers per item is uploaded, graded and grouped by selection; one
group decision grades its members; a student never sees the correct choice."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.db.session import make_engine, make_sessionmaker
from app.main import create_app
from app.settings import Settings
from tests.app.conftest import Api, copy_sqlite, make_tokens

SLUG = "quiz-attention"
QUIZ = f"""
slug: {SLUG}
title: Attention quiz
release: {{visibility: visible}}
questions:
  - id: Q1
    items:
      - id: q1.scale
        points: 2
        grader: choice
        config: {{choices: [A, B, C, D], correct: B, credit: {{C: 0.5}}}}
  - id: Q2
    items:
      - id: q2.masks
        points: 3
        grader: choice
        config:
          choices: [A, B, C, D, E]
          correct: [A, C, E]
          select: several
          scoring: right_minus_wrong
"""


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Api]:
    directory = tmp_path_factory.mktemp("choice")
    rubrics = directory / "rubrics"
    rubrics.mkdir()
    (rubrics / "quiz.yaml").write_text(QUIZ)
    url = copy_sqlite(sqlite_template, directory)
    settings = Settings(database_url=url, workers=1, rubrics_dir=rubrics,
                        upload_burst=10_000, uploads_per_minute=10_000)
    engine = make_engine(url)
    sessions = make_sessionmaker(engine)
    with TestClient(create_app(settings)) as client:
        yield Api(client, sessions, settings, make_tokens(sessions))
    engine.dispose()


def _submit(api: Api, student: str, answers: dict[str, str]) -> dict[str, Any]:
    response = api.client.post(
        f"/api/v1/assignments/{SLUG}/submissions?wait=true&student={student}",
        json={"answers": answers}, headers=api.auth("prof"))
    assert response.status_code == 201, response.text
    shown = api.client.get(f"/api/v1/submissions/{response.json()['id']}",
                           headers=api.auth("prof"))
    assert shown.status_code == 200, shown.text
    body: dict[str, Any] = shown.json()
    return body


def _items(body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {i["id"]: i for i in body["items"]}


def test_a_quiz_export_is_graded_per_choice(api: Api) -> None:
    right = _items(_submit(api, "s-right", {"q1.scale": "b", "q2.masks": "A, C, E"}))
    assert (right["q1.scale"]["points"], right["q1.scale"]["status"]) == (2, "graded")
    assert (right["q2.masks"]["points"], right["q2.masks"]["status"]) == (3, "graded")
    partial = _items(_submit(api, "s-partial", {"q1.scale": "C", "q2.masks": "A, B, C"}))
    assert float(partial["q1.scale"]["points"]) == 1.0
    assert float(partial["q2.masks"]["points"]) == 1.0
    odd = _items(_submit(api, "s-odd", {"q1.scale": "F", "q2.masks": "A"}))
    assert odd["q1.scale"]["status"] == "needs_review"


def test_answers_group_by_selection_and_one_decision_grades_the_group(api: Api) -> None:
    same = [_submit(api, f"g{n}", {"q1.scale": "D", "q2.masks": text})["id"]
            for n, text in enumerate(["A, E", "e; a", "a and e"])]
    response = api.client.get(f"/api/v1/assignments/{SLUG}/items/q2.masks/groups",
                              headers=api.auth("prof"))
    assert response.status_code == 200, response.text
    body = response.json()
    assert body["grader"] == "choice"
    group = next(g for g in body["groups"]
                 if {m["submission_id"] for m in g["members"]} >= set(same))
    assert (group["method"], group["signature"]) == ("choice", "a; e")
    assert {m["submission_id"] for m in group["members"]} == set(same)
    decided = api.client.post(
        f"/api/v1/assignments/{SLUG}/items/q2.masks/groups/{group['id']}/decision",
        json={"points": 2.5, "comment": "E is a mask too, but so is C."},
        headers=api.auth("prof"))
    assert decided.status_code == 200, decided.text
    assert set(decided.json()["decided"]) == set(same)
    for submission in same:
        shown = api.client.get(f"/api/v1/submissions/{submission}", headers=api.auth("prof"))
        assert _items(shown.json())["q2.masks"]["points"] == 2.5


def test_a_student_never_sees_the_correct_choice(api: Api) -> None:
    body = api.client.post(f"/api/v1/assignments/{SLUG}/submissions?wait=true",
                           json={"answers": {"q1.scale": "D", "q2.masks": "B"}},
                           headers=api.auth("alice"))
    assert body.status_code == 201, body.text
    shown = api.client.get(f"/api/v1/submissions/{body.json()['id']}", headers=api.auth("alice"))
    assert shown.status_code == 200, shown.text
    items = _items(shown.json())
    assert items["q1.scale"]["points"] == 0
    text = str(shown.json())
    assert "correct answer is" not in text and "'B'" not in text
