"""Staff-only fields in every student JSON response. A student walks every GET endpoint the API
declares, with the ids of their own submission, its items and their own regrade request, before
and after the grades are published: no answer carries a field only staff models have (machine
points, evidence, confidence, overrides, grader versions, rubric hashes, LMS ids), nor any text
staff read that differs from what the student is shown (evidence, staff feedback), nor the
execution time. Another student gets 404 on all of it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from pydantic import BaseModel

from app.appeals.router import RequestOut, StaffRequestOut
from app.assignments.router import AssignmentOut, StudentAssignmentOut
from app.submissions.schemas import (
    ItemOut,
    StudentItemOut,
    StudentSubmissionOut,
    StudentSubmissionSummary,
    SubmissionOut,
    SubmissionSummary,
)
from tests.app.conftest import Api
from tests.attacks.conftest import SLUG, UPLOAD

STAFF: list[type[BaseModel]] = [SubmissionOut, SubmissionSummary, ItemOut, AssignmentOut,
                                StaffRequestOut]
STUDENT: list[type[BaseModel]] = [StudentSubmissionOut, StudentSubmissionSummary,
                                  StudentItemOut, StudentAssignmentOut, RequestOut]
STAFF_ONLY = ({f for m in STAFF for f in m.model_fields}
              - {f for m in STUDENT for f in m.model_fields})
# What no student answer names at all, whatever model carries it.
NEVER = {"evidence", "confidence", "machine_points", "machine_status", "override", "lms",
         "sis_user_id", "canvas_user_id", "rubric_hash", "grader_version"}
DOCUMENT = {"answers": {"b1.d_head": "65", "b1.per_matrix": "589824", "B2": "the keys",
                        "B3": "def attention(Q, K, V):\n    return Q\n"}}


def _keys(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield str(key), inner
            yield from _keys(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _keys(inner)


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    for _, inner in _keys(value):
        if isinstance(inner, str):
            yield inner


def _student_paths(target: Api, ids: dict[str, str]) -> list[str]:
    spec = target.client.get("/openapi.json").json()
    paths = []
    for path, item in spec["paths"].items():
        if "get" not in item:
            continue
        try:
            paths.append(path.format(**ids))
        except KeyError:
            continue
    return paths


def _setup(target: Api) -> dict[str, str]:
    answer = target.client.post(UPLOAD, params={"wait": "true"}, json=DOCUMENT,
                                headers=target.auth("alice"))
    assert answer.status_code == 201, answer.text
    sid = str(answer.json()["id"])
    staff = target.client.get(f"/api/v1/submissions/{sid}", headers=target.auth("prof")).json()
    return {"slug": SLUG, "submission_id": sid, "item_id": staff["items"][0]["id"],
            "question": staff["items"][0]["question"], "request_id": "1", "job_id": "1",
            "group_id": "1", "name": "web.css"}


def _staff_texts(target: Api, sid: str) -> set[str]:
    staff = target.client.get(f"/api/v1/submissions/{sid}", headers=target.auth("prof")).json()
    shown = set()
    for item in staff["items"]:
        shown |= {item["student_feedback"] or "", item["student_sees"]["feedback"],
                  item["student_sees"]["published_feedback"]}
    texts = set()
    for item in staff["items"]:
        texts |= {t for t in _strings(item["evidence"]) if len(t) >= 24}
        if item["feedback"] not in shown and len(item["feedback"]) >= 24:
            texts.add(item["feedback"])
    return {t for t in texts if not any(t in s for s in shown)}


def _sweep(target: Api, ids: dict[str, str]) -> list[str]:
    found = []
    secret_texts = _staff_texts(target, ids["submission_id"])
    assert secret_texts, "staff read nothing their student does not: nothing to look for"
    reached = []
    for path in _student_paths(target, ids):
        answer = target.client.get(path, headers=target.auth("alice"))
        if answer.status_code != 200 or "json" not in answer.headers.get("content-type", ""):
            continue
        reached.append(path)
        body = answer.json()
        for key, value in _keys(body):
            if key in STAFF_ONLY | NEVER:
                found.append(f"{path}: {key}")
            if key == "execution_time" and value is not None:
                found.append(f"{path}: execution_time {value}")
        text = answer.text
        found += [f"{path}: staff text {t[:60]!r}" for t in secret_texts if t in text]
    assert len(reached) >= 5, reached
    return found


def test_no_student_answer_carries_a_staff_only_field_before_or_after_publication(
        target: Api) -> None:
    assert {"evidence", "machine_points", "override"} <= STAFF_ONLY
    ids = _setup(target)
    # a regrade request of her own, once there is something to ask about
    target.client.post(f"/api/v1/assignments/{SLUG}/publish", headers=target.auth("prof"))
    asked = target.client.post(
        f"/api/v1/submissions/{ids['submission_id']}/items/{ids['item_id']}/regrade-requests",
        json={"comment": "please look again"}, headers=target.auth("alice"))
    if asked.status_code == 201:
        ids["request_id"] = str(asked.json()["id"])
    after = _sweep(target, ids)
    target.client.delete(f"/api/v1/assignments/{SLUG}/publish", headers=target.auth("prof"))
    before = _sweep(target, ids)
    assert not after and not before, {"published": after, "unpublished": before}


def test_another_student_reads_nothing_of_it(target: Api) -> None:
    ids = _setup(target)
    leaked = []
    for path in _student_paths(target, ids):
        if ids["submission_id"] not in path:
            continue
        answer = target.client.get(path, headers=target.auth("bob"))
        if answer.status_code not in (403, 404):
            leaked.append(f"{path}: {answer.status_code}")
    assert not leaked, leaked
