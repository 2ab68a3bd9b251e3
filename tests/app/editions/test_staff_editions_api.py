"""Staff decide the handout edition, through the real app over HTTP (a real SQLite file, the
app's own process pool): a student who declares the other edition (the one whose question they
got wrong is not asked there) is graded under staff's edition all the same, staff read the
declaration, and changing a student's edition regrades their submission through the
assignment's regrade job."""

from __future__ import annotations

import time
from typing import Any

import pytest
from sqlalchemy import select

from app.assignments.service import load_rubric_text
from app.db.models import AuditEntry
from app.db.session import unit_of_work
from tests.app.conftest import Api
from tests.app.submissions.test_handout_editions import SLUG, UPLOAD, rubric_text
from tests.app.web.test_pages import _browser
from tests.support.pages import csrf_of

EDITIONS = f"/api/v1/assignments/{SLUG}/editions"
# Q2 (asked by 2021 only) is wrong: declaring 2022 would make it count 0 of 0.
WRONG_Q2 = b"Q1: 10\n\nQ2: 99\n\nQ3: 30\n"


@pytest.fixture(scope="module")
def course(api: Api) -> Api:
    with unit_of_work(api.sessions) as session:
        load_rubric_text(session, rubric_text(), "<editions>")
    return api


def _upload(api: Api, who: str, handout: str | None, key: str | None = None) -> Any:
    headers = api.auth(who) | ({"Idempotency-Key": key} if key else {})
    response = api.client.post(
        f"{UPLOAD}?wait=true", files={"file": ("s.md", WRONG_Q2, "text/markdown")},
        data={} if handout is None else {"handout": handout}, headers=headers)
    assert response.status_code in (200, 201), response.text
    return response.json()


def _staff_view(api: Api, sid: int) -> dict[str, Any]:
    body: dict[str, Any] = api.client.get(f"/api/v1/submissions/{sid}",
                                          headers=api.auth("prof")).json()
    return body


def _put(api: Api, path: str, handout: str | None, who: str = "prof") -> Any:
    return api.client.put(path, json={"handout": handout}, headers=api.auth(who))


def _wait_regrade(api: Api, url: str) -> None:
    for _ in range(600):
        job = api.client.get(url, headers=api.auth("prof")).json()
        if job["status"] != "running":
            assert job["status"] == "done", job
            return
        time.sleep(0.1)
    raise AssertionError(f"regrade {url} still running")


def test_the_editions_page_warns_until_staff_decide(course: Api) -> None:
    listed = course.client.get(EDITIONS, headers=course.auth("prof")).json()
    assert listed["fixed"] is None and listed["handouts"] == ["2021", "2022"]
    assert "differ by question q2, q3" in listed["warning"]
    staff = course.client.get(f"/api/v1/assignments/{SLUG}", headers=course.auth("prof")).json()
    assert "differ by question q2, q3" in staff["edition_warning"]
    student = course.client.get(EDITIONS, headers=course.auth("alice"))
    assert student.status_code == 403
    assert _put(course, f"{EDITIONS}/alice", "2021", who="alice").status_code == 403


def test_a_declaration_against_the_students_edition_does_not_move_the_grade(
        course: Api) -> None:
    assert _put(course, f"{EDITIONS}/bob", "2021").status_code == 200
    honest = _upload(course, "bob", "2021")
    other = _upload(course, "bob", "2022")  # the attack: Q2 would count 0 of 0
    silent = _upload(course, "bob", None)
    grades = {s["id"]: _staff_view(course, s["id"]) for s in (honest, other, silent)}
    assert {(g["total"], g["max_points"], g["handout"]) for g in grades.values()} == {
        (2, 3, "2021")}
    assert grades[other["id"]]["declared_handout"] == "2022"
    assert grades[silent["id"]]["declared_handout"] is None
    staff_page = _browser(course, "prof").get(f"/submissions/{other['id']}").text
    assert "(the upload declared 2022; graded under staff's edition)" in staff_page.replace(
        "&#x27;", "'")
    own_page = _browser(course, "bob").get(f"/submissions/{other['id']}").text
    assert "the upload declared" not in own_page
    own = course.client.get(f"/api/v1/submissions/{other['id']}",
                            headers=course.auth("bob")).json()
    assert own["handout"] == "2021" and "declared_handout" not in own
    with unit_of_work(course.sessions) as session:
        details = {e.entity_id: e.detail for e in session.scalars(
            select(AuditEntry).where(AuditEntry.action == "submission.create"))}
    assert details[str(other["id"])]["handout"] == {"declared": "2022", "graded": "2021"}
    assert "handout" not in details[str(honest["id"])]


def test_an_idempotent_retry_under_a_staff_edition_is_the_same_upload(course: Api) -> None:
    first = _upload(course, "bob", "2022", key="retry-1")
    again = _upload(course, "bob", "2022", key="retry-1")
    assert again["id"] == first["id"]


def test_changing_a_students_edition_regrades_their_submissions(course: Api) -> None:
    sid = _upload(course, "bob", "2022")["id"]
    changed = _put(course, f"{EDITIONS}/bob", "2022")
    assert changed.status_code == 200, changed.text
    body = changed.json()
    assert sid in body["submissions"] and body["regrade_url"].startswith("/api/v1/regrades/")
    _wait_regrade(course, body["regrade_url"])
    regraded = _staff_view(course, sid)
    assert (regraded["handout"], regraded["total"], regraded["max_points"]) == ("2022", 3, 3)
    unchanged = _put(course, f"{EDITIONS}/bob", "2022").json()
    assert unchanged["submissions"] == [] and unchanged["regrade_url"] is None


def test_the_assignments_edition_governs_students_without_their_own(course: Api) -> None:
    fixed = _put(course, f"/api/v1/assignments/{SLUG}/edition", "2021")
    assert fixed.status_code == 200, fixed.text
    if fixed.json()["regrade_url"]:
        _wait_regrade(course, fixed.json()["regrade_url"])
    alice = _staff_view(course, _upload(course, "alice", "2022")["id"])
    assert (alice["handout"], alice["declared_handout"], alice["total"]) == ("2021", "2022", 2)
    bob = _staff_view(course, _upload(course, "bob", "2021")["id"])
    assert bob["handout"] == "2022"  # his own edition, set above, wins over the assignment's
    listed = course.client.get(EDITIONS, headers=course.auth("prof")).json()
    assert listed["fixed"] == "2021" and listed["warning"] is None
    assert listed["students"] == [{"student": "bob", "handout": "2022"}]
    cleared = _put(course, f"/api/v1/assignments/{SLUG}/edition", None).json()
    assert cleared["handout"] is None and alice["id"] in cleared["submissions"]
    _wait_regrade(course, cleared["regrade_url"])
    back = _staff_view(course, alice["id"])  # back to what alice declared
    assert (back["handout"], back["total"], back["max_points"]) == ("2022", 3, 3)


def test_an_edition_the_rubric_does_not_grade_is_refused(course: Api) -> None:
    refused = _put(course, f"{EDITIONS}/bob", "2030")
    assert refused.status_code == 422
    assert refused.headers["content-type"] == "application/problem+json"
    assert refused.json()["allowed"] == ["2021", "2022"]
    assert refused.json()["type"].endswith("unknown-handout")
    missing = _put(course, "/api/v1/assignments/no-such/edition", "2021")
    assert missing.status_code == 404


def test_the_settings_page_sets_editions_and_follows_the_regrade(course: Api) -> None:
    prof = _browser(course, "prof")
    settings_url = f"/assignments/{SLUG}/settings"
    page = prof.get(settings_url).text
    assert "<h2>Handout editions</h2>" in page
    token = csrf_of(page)
    sid = _upload(course, "alice", "2022")["id"]
    action = f"{settings_url}/edition"
    refused = prof.post(action, data={"csrf": token, "student": "alice", "handout": "2030"})
    assert refused.status_code == 422 and "is not an edition of this assignment" in refused.text
    forged = _browser(course, "alice").post(action, data={"csrf": token, "handout": "2021"})
    assert forged.status_code == 403
    done = prof.post(action, data={"csrf": token, "student": "alice", "handout": "2021"},
                     follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"].startswith("/regrades/")
    _wait_regrade(course, "/api/v1" + done.headers["location"])
    moved = _staff_view(course, sid)
    assert (moved["handout"], moved["declared_handout"], moved["total"]) == ("2021", "2022", 2)
    page = prof.get(settings_url).text
    assert ('<tr><td data-label="student">alice</td><td data-label="edition">2021</td></tr>'
            in page)
    again = prof.post(action, data={"csrf": token, "student": "alice", "handout": "2021"},
                      follow_redirects=False)
    assert again.headers["location"] == f"{settings_url}?saved=edition"
