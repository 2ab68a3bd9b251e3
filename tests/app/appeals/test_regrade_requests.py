"""Regrade requests over HTTP, through the real app and a real SQLite file: a student asks about
a released item, staff answer and keep or change the points (an override: in the student's
view, the gradebook and the audit log), the limit per assignment, one open request per item,
withdrawing the grades closes what is open; the web forms with their CSRF token; and leaks: a
student never reads another student's request nor staff-only text, and the staff pages'
"Student sees:" preview is exactly what the student's own pages show."""

from __future__ import annotations

import csv
import dataclasses
import html
import io
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from app.appeals.models import RegradeRequest
from app.appeals.service import ItemState, refusal
from app.db.models import Assignment, AuditEntry, Submission
from app.db.session import unit_of_work
from app.errors import RegradeLimitReached
from tests.app.clocked import ClockedApi, capi, problem
from tests.support.pages import csrf_of

__all__ = ["capi"]

RUBRIC = """
slug: {slug}
title: Regrade requests {slug}
release: {{visibility: after_published, solutions: never}}
questions:
  - id: P1
    prompt: Give the first value.
    items:
      - {{id: p1.value, points: 2, grader: numeric, config: {{expected: 4242, kind: integer}}}}
  - id: P2
    prompt: Give the second value.
    items:
      - {{id: p2.value, points: 2, grader: numeric, config: {{expected: 5151, kind: integer}}}}
  - id: P3
    prompt: Give the third value.
    items:
      - {{id: p3.hidden, points: 2, grader: numeric, visibility: hidden,
          config: {{expected: 6363, kind: integer}}}}
  - id: P4
    prompt: Give the fourth value.
    items:
      - {{id: p4.value, points: 2, grader: numeric, config: {{expected: 7474, kind: integer}}}}
  - id: P5
    prompt: Give the fifth value.
    items:
      - {{id: p5.value, points: 2, grader: numeric, config: {{expected: 8585, kind: integer}}}}
"""
ANSWERS = {"P1": "1", "P2": "5151", "P3": "1", "P4": "7474", "P5": "2"}
# Staff-only text of the machine's feedback for P1's wrong value: never in a student's answer.
STAFF_ONLY = "is not the expected value"


def _assignment(capi: ClockedApi, slug: str, publish: bool = True) -> int:
    """A fresh assignment with alice's graded submission (published unless asked not to)."""
    capi.load(RUBRIC.format(slug=slug))
    submitted = capi.submit(slug, "alice", ANSWERS)
    assert submitted.status_code == 201, submitted.text
    if publish:
        _publish(capi, slug)
    return int(submitted.json()["id"])


def _publish(capi: ClockedApi, slug: str) -> None:
    published = capi.client.post(f"/api/v1/assignments/{slug}/publish", headers=capi.auth("prof"))
    assert published.status_code == 200, published.text


def _ask(capi: ClockedApi, submission: int, item: str, comment: str = "Please look again.",
         who: str = "alice") -> Any:
    return capi.client.post(f"/api/v1/submissions/{submission}/items/{item}/regrade-requests",
                            json={"comment": comment}, headers=capi.auth(who))


def _answer(capi: ClockedApi, request_id: int, who: str = "prof", **body: Any) -> Any:
    return capi.client.post(f"/api/v1/regrade-requests/{request_id}/answer",
                            json={"reply": "Looked again.", **body}, headers=capi.auth(who))


def _item(body: dict[str, Any], item_id: str) -> dict[str, Any]:
    return next(i for i in body["items"] if i["id"] == item_id)


def _audit(capi: ClockedApi, submission: int) -> list[str]:
    with capi.sessions() as session:
        return list(session.scalars(
            select(AuditEntry.action).where(AuditEntry.entity == "submission",
                                            AuditEntry.entity_id == str(submission))
            .order_by(AuditEntry.id)))


def test_a_changed_grade_is_an_override_the_student_reads_and_the_gradebook_exports(
    capi: ClockedApi,
) -> None:
    sid = _assignment(capi, "rr-flow")
    asked = _ask(capi, sid, "p1.value", "\u200bI wrote 4242\u2060 in the margin.\x07")
    assert asked.status_code == 201, asked.text
    request = asked.json()
    # Cleaned: no invisible characters, no control characters.
    assert request["comment"] == "I wrote 4242 in the margin.\ufffd"
    assert request["status"] == "open" and request["points_before"] == 0
    assert set(request) == {"id", "submission_id", "item_id", "status", "comment", "created_at",
                            "points_before", "reply", "answered_at", "points_after",
                            "closed_note"}
    # In the staff list, with the student; a second request on the item waits for the first.
    listed = capi.get("/api/v1/assignments/rr-flow/regrade-requests", "prof")
    assert [(r["id"], r["student"], r["item_id"]) for r in listed] == [
        (request["id"], "alice", "p1.value")]
    again = problem(_ask(capi, sid, "p1.value"), 409)
    assert again["type"].endswith("/regrade-request-refused") and "already" in again["detail"]

    answered = _answer(capi, request["id"], points=1.5, reply="The margin counts.",
                       feedback="4242 was in the margin: half the points for the setup.")
    assert answered.status_code == 200, answered.text
    assert answered.json()["status"] == "answered" and answered.json()["points_after"] == 1.5
    # The student reads the reply, the new points and the item's new text.
    mine = capi.get(f"/api/v1/regrade-requests/{request['id']}", "alice")
    assert mine["reply"] == "The margin counts." and mine["points_after"] == 1.5
    assert "answered_by" not in mine and "student" not in mine
    item = _item(capi.get(f"/api/v1/submissions/{sid}", "alice"), "p1.value")
    assert item["points"] == 1.5
    assert item["feedback"] == "4242 was in the margin: half the points for the setup."
    # Stored as an override: staff see it beside the machine's points; the gradebook has it.
    staff = _item(capi.get(f"/api/v1/submissions/{sid}", "prof"), "p1.value")
    assert staff["override"]["points"] == 1.5 and staff["machine_points"] == 0
    gradebook = capi.client.get("/api/v1/assignments/rr-flow/export.csv",
                                headers=capi.auth("prof")).text
    rows = {row["student"]: row for row in csv.DictReader(io.StringIO(gradebook))}
    assert rows["alice"]["P1"] == "1.50" and rows["alice"]["total"] == "5.50"
    assert _audit(capi, sid)[-3:] == ["regrade_request.create", "override.set",
                                      "regrade_request.answer"]
    # Answered once: a second answer is refused.
    assert problem(_answer(capi, request["id"]), 409)["detail"].startswith(
        f"Regrade request {request['id']} is answered")


def test_keeping_the_points_stores_no_override(capi: ClockedApi) -> None:
    sid = _assignment(capi, "rr-keep")
    request = _ask(capi, sid, "p2.value").json()
    kept = _answer(capi, request["id"], reply="Full points already.")
    assert kept.status_code == 200, kept.text
    assert kept.json()["points_before"] == kept.json()["points_after"] == 2
    assert _item(capi.get(f"/api/v1/submissions/{sid}", "prof"), "p2.value")["override"] is None
    assert "override.set" not in _audit(capi, sid)
    # The same points typed again are a keep too.
    other = _ask(capi, sid, "p1.value").json()
    assert _answer(capi, other["id"], points=0).json()["points_after"] == 0
    assert "override.set" not in _audit(capi, sid)


def test_the_limit_per_student_and_assignment(capi: ClockedApi) -> None:
    assert capi.settings.regrade_requests_per_assignment == 3
    sid = _assignment(capi, "rr-limit")
    first = _ask(capi, sid, "p1.value").json()
    assert _ask(capi, sid, "p2.value").status_code == 201
    _answer(capi, first["id"])  # answered requests still count
    assert _ask(capi, sid, "p4.value").status_code == 201
    over = problem(_ask(capi, sid, "p5.value"), 409)
    assert over["type"].endswith("/regrade-request-limit-reached")
    assert over["limit"] == 3 and over["used"] == 3 and "all 3 regrade requests" in over["detail"]
    # Bob's own limit is his: another student's requests do not use it.
    bob = capi.submit("rr-limit", "bob", ANSWERS).json()["id"]
    assert _ask(capi, bob, "p5.value", who="bob").status_code == 201


def test_only_a_released_item_of_the_counted_submission(capi: ClockedApi) -> None:
    sid = _assignment(capi, "rr-released", publish=False)
    before = problem(_ask(capi, sid, "p1.value"), 409)
    assert "not published" in before["detail"]
    _publish(capi, "rr-released")
    hidden = problem(_ask(capi, sid, "p3.hidden"), 409)
    assert "not released" in hidden["detail"]
    assert problem(_ask(capi, sid, "p9.nothing"), 404)["detail"].endswith("'p9.nothing'.")
    assert problem(_ask(capi, sid, "p1.value", who="prof"), 403)
    assert problem(_ask(capi, sid, "p1.value", "   \u200b "), 422)["detail"].startswith("Say why")
    assert _ask(capi, sid, "p1.value", "x" * 2001).status_code == 422
    # A later upload counts now (the latest counts): the earlier one can no longer be asked about.
    capi.submit("rr-released", "alice", ANSWERS)
    replaced = problem(_ask(capi, sid, "p1.value"), 409)
    assert "submission that counts" in replaced["detail"]


def test_withdrawing_the_grades_closes_open_requests_with_a_note(capi: ClockedApi) -> None:
    sid = _assignment(capi, "rr-withdraw")
    open_one = _ask(capi, sid, "p1.value").json()
    answered = _ask(capi, sid, "p2.value").json()
    _answer(capi, answered["id"])
    withdrawn = capi.client.delete("/api/v1/assignments/rr-withdraw/publish",
                                   headers=capi.auth("prof"))
    assert withdrawn.status_code == 200
    closed = capi.get(f"/api/v1/regrade-requests/{open_one['id']}", "alice")
    assert closed["status"] == "closed" and "grades were withdrawn" in closed["closed_note"]
    assert capi.get(f"/api/v1/regrade-requests/{answered['id']}", "alice")["status"] == "answered"
    assert problem(_answer(capi, open_one["id"]), 409)
    assert "regrade_request.close" in _audit(capi, sid)
    assert capi.get("/api/v1/assignments/rr-withdraw/regrade-requests", "prof") == []
    listed = capi.get("/api/v1/assignments/rr-withdraw/regrade-requests?state=closed", "prof")
    assert [r["id"] for r in listed] == [open_one["id"]]
    # Published again: the student may ask again, and the closed request used none of the limit.
    _publish(capi, "rr-withdraw")
    assert _ask(capi, sid, "p1.value").status_code == 201
    assert _ask(capi, sid, "p4.value").status_code == 201
    assert problem(_ask(capi, sid, "p5.value"), 409)["used"] == 3


def test_a_student_never_reads_or_answers_another_students_request(capi: ClockedApi) -> None:
    sid = _assignment(capi, "rr-leak")
    secret = "My roommate's answer was 4242 too."
    request = _ask(capi, sid, "p1.value", secret).json()
    bob_sid = capi.submit("rr-leak", "bob", ANSWERS).json()["id"]
    for path in (f"/api/v1/regrade-requests/{request['id']}",
                 f"/api/v1/submissions/{sid}/regrade-requests"):
        assert problem(capi.client.get(path, headers=capi.auth("bob")), 404)
    assert problem(_ask(capi, sid, "p2.value", who="bob"), 404)
    assert problem(_answer(capi, request["id"], who="bob"), 403)
    assert problem(capi.client.get("/api/v1/assignments/rr-leak/regrade-requests",
                                   headers=capi.auth("bob")), 403)
    assert capi.get(f"/api/v1/submissions/{bob_sid}/regrade-requests", "bob") == []
    bob = _browser(capi, "bob")
    assert secret not in bob.get(f"/submissions/{bob_sid}").text
    assert bob.get(f"/submissions/{sid}").status_code == 404
    assert bob.get(f"/regrade-requests/{request['id']}").status_code == 403


def test_staff_only_text_never_reaches_the_student(capi: ClockedApi) -> None:
    sid = _assignment(capi, "rr-staff-only")
    request = _ask(capi, sid, "p1.value").json()
    _answer(capi, request["id"], reply="Kept: the value is wrong.")
    staff_view = capi.get(f"/api/v1/submissions/{sid}", "prof")
    assert STAFF_ONLY in _item(staff_view, "p1.value")["feedback"]
    alice = _browser(capi, "alice")
    page = alice.get(f"/submissions/{sid}").text
    student_answers = [
        page,
        capi.client.get(f"/api/v1/submissions/{sid}", headers=capi.auth("alice")).text,
        capi.client.get(f"/api/v1/submissions/{sid}/regrade-requests",
                        headers=capi.auth("alice")).text,
        capi.client.get(f"/api/v1/regrade-requests/{request['id']}",
                        headers=capi.auth("alice")).text,
    ]
    for text in student_answers:
        assert STAFF_ONLY not in text and "confidence" not in text
        assert '"requester_id"' not in text and '"answered_by"' not in text
    section = page[page.index("id='regrade'"):]
    assert "Kept: the value is wrong." in section and "Course staff answered" in section
    assert "prof" not in section  # who answered is staff-only


def _browser(capi: ClockedApi, who: str) -> TestClient:
    client = TestClient(capi.client.app)  # type: ignore[arg-type]
    signed = client.post("/sign-in", data={"token": capi.tokens[who], "next": "/"},
                         follow_redirects=False)
    assert signed.status_code == 303
    return client



def _said(page: str, item_id: str) -> str:
    """The text a "Student sees:" preview quotes for one item."""
    block = page[page.index(f"data-item='{item_id}'"):]
    found = re.search(r"<span class='said'>(.*?)</span>", block, re.S)
    assert found
    return html.unescape(found.group(1))


def test_the_web_forms_ask_and_answer_with_the_sessions_csrf_token(capi: ClockedApi) -> None:
    sid = _assignment(capi, "rr-web")
    alice = _browser(capi, "alice")
    page = alice.get(f"/submissions/{sid}").text
    assert "'Ask for a regrade of p1.value'" in page and "0 of 3 regrade requests" in page
    assert "Ask for a regrade of p3.hidden" not in page  # not released to her
    post = f"/submissions/{sid}/regrade-requests"
    forged = alice.post(post, data={"csrf": "0" * 64, "item_id": "p1.value", "comment": "x"},
                        follow_redirects=False)
    assert forged.status_code == 403 and "security token" in forged.text
    assert capi.get(f"/api/v1/submissions/{sid}/regrade-requests", "alice") == []
    sent = alice.post(post, data={"csrf": csrf_of(page), "item_id": "p1.value",
                                  "comment": "The <b>margin</b> says 4242."},
                      follow_redirects=False)
    assert sent.status_code == 303, sent.text
    mine = alice.get(sent.headers["location"]).text
    assert "The &lt;b&gt;margin&lt;/b&gt; says 4242." in mine  # text, never markup
    assert "waiting for course staff" in mine and "1 of 3 regrade requests" in mine
    twice = alice.post(post, data={"csrf": csrf_of(mine), "item_id": "p1.value", "comment": "x"})
    assert twice.status_code == 409 and "already asked" in twice.text

    request_id = capi.get(f"/api/v1/submissions/{sid}/regrade-requests", "alice")[0]["id"]
    prof = _browser(capi, "prof")
    queue = prof.get("/assignments/rr-web/review").text
    assert "Regrade requests" in queue and f'href="/regrade-requests/{request_id}"' in queue
    listing = prof.get("/assignments/rr-web/regrade-requests").text
    assert f'href="/regrade-requests/{request_id}"' in listing and "alice" in listing
    shown = prof.get(f"/regrade-requests/{request_id}").text
    assert "Student sees:" in shown and STAFF_ONLY in shown  # staff see the machine's reasons
    assert _said(shown, "p1.value") == _item(
        capi.get(f"/api/v1/submissions/{sid}", "alice"), "p1.value")["feedback"]
    assert "The &lt;b&gt;margin&lt;/b&gt; says 4242." in shown and 'id="answer-form"' in shown
    answer = f"/regrade-requests/{request_id}/answer"
    refused = prof.post(answer, data={"csrf": "0" * 64, "reply": "x", "points": "2"})
    assert refused.status_code == 403
    done = prof.post(answer, data={"csrf": csrf_of(shown), "reply": "Yes, full points.",
                                   "points": "2", "feedback": ""}, follow_redirects=False)
    assert done.status_code == 303
    after = prof.get(done.headers["location"]).text
    assert "points changed to <b id='stored-points'>2</b>" in after
    assert _said(after, "p1.value") == "Full credit." and 'id="answer-form"' not in after
    assert "<span id='open-regrades'>none</span> open" in prof.get(
        "/assignments/rr-web/review").text
    final = alice.get(f"/submissions/{sid}").text
    assert "Yes, full points." in final and "Points changed: 0 → <b>2</b>" in final


def test_the_staff_preview_is_what_the_student_reads_before_and_after_release(
    capi: ClockedApi,
) -> None:
    slug = "transformer-basics"
    # Two readings of d_head: the numeric grader leaves b1.d_head to a human.
    answers = {"B1": "d_head = 12 maybe 64", "A1": "XOR is not linearly separable."}
    sid = capi.submit(slug, "alice", answers).json()["id"]
    prof, alice = _browser(capi, "prof"), _browser(capi, "alice")
    staff_items = capi.get(f"/api/v1/submissions/{sid}", "prof")
    assert _item(staff_items, "b1.d_head")["status"] == "needs_review"
    review = prof.get(f"/assignments/{slug}/review?item_id=b1.d_head").text
    assert _said(review, "b1.d_head") == "Being reviewed by course staff."
    assert "After <i>Accept</i> (no comment), once released: “" in review
    for published in (False, True):
        if published:
            _publish(capi, slug)
        page = prof.get(f"/submissions/{sid}").text
        student = capi.get(f"/api/v1/submissions/{sid}", "alice")
        for staff, item in zip(staff_items["items"], student["items"], strict=True):
            assert _said(page, staff["id"]) == item["feedback"], staff["id"]
        assert _said(page, "b1.d_head") == "Being reviewed by course staff."
    # Decided by hand with no comment: both read the message for the decided points.
    decided = capi.client.put(f"/api/v1/submissions/{sid}/items/b1.d_head/override",
                              json={"points": 1}, headers=capi.auth("prof"))
    assert decided.status_code == 200
    page = prof.get(f"/submissions/{sid}").text
    assert _said(page, "b1.d_head") == "1 of 4 points." == _item(
        capi.get(f"/api/v1/submissions/{sid}", "alice"), "b1.d_head")["feedback"]
    assert "1 of 4 points." in alice.get(f"/submissions/{sid}").text


def test_the_database_keeps_one_open_request_per_item(sessions: sessionmaker[Session]) -> None:
    """Two posts at once both pass the service's check: the partial unique index of the
    migration refuses the second open request (on SQLite and PostgreSQL); closed and answered
    ones may be many."""
    with unit_of_work(sessions) as session:
        assignment = Assignment(slug="rr-index", title="Index")
        session.add(assignment)
        session.flush()
        submission = Submission(assignment_id=assignment.id, student="alice", size=1,
                                sha256="0" * 64, raw=b"x")
        session.add(submission)
        session.flush()
        sid = submission.id

    def add(status: str) -> None:
        with unit_of_work(sessions) as session:
            session.add(RegradeRequest(submission_id=sid, item_id="p1.value", status=status,
                                       comment="again"))

    add("answered")
    add("closed")
    add("answered")
    add("open")
    with pytest.raises(IntegrityError):
        add("open")
    with unit_of_work(sessions) as session:
        other = RegradeRequest(submission_id=sid, item_id="p2.value", comment="other")
        session.add(other)  # another item's open request is its own


def test_each_refusal_names_its_reason_and_the_first_that_applies_wins() -> None:
    allowed = ItemState("p1.value", published=True, points_shown=True, counted=True,
                        has_open=False, used=2, limit=3)
    assert refusal(allowed) is None
    cases = [
        (dict(published=False), "not published"),
        (dict(points_shown=False), "not released"),
        (dict(counted=False), "submission that counts"),
        (dict(has_open=True), "already asked"),
        (dict(limit=0), "turned off"),
        (dict(used=3), "all 3 regrade requests"),
    ]
    for change, words in cases:
        refused = refusal(dataclasses.replace(allowed, **change))
        assert refused is not None and words in refused.detail, change
        assert refused.status == 409
    limited = refusal(dataclasses.replace(allowed, used=5))
    assert isinstance(limited, RegradeLimitReached) and limited.extra["used"] == 5
    # Not published outranks everything: no other reason is given before publication.
    everything = ItemState("p1.value", False, False, False, True, 9, 3)
    refused = refusal(everything)
    assert refused is not None and "not published" in refused.detail
