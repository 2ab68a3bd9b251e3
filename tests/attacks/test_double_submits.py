"""Every staff write sent several times at once (a double-clicked form, two TAs on the same
answer, a client retrying before the first answer came back), on SQLite and PostgreSQL: the
first override of an item, a group decision, the answer to a regrade request, the submission
that counts, a question's first risk target and a roster import. Each is taken once or
refused as already done (409), never a 500: on PostgreSQL two transactions both read that the
override or target was missing and both inserted it (a unique-key error), or chose two of a
student's submissions updating each other's rows in opposite orders (a deadlock), and every
answer to one request was taken; a roster import waited for the write lock on the event
loop, stopping the whole server until the lock timeout."""

from __future__ import annotations

import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import httpx
from sqlalchemy import func, select

from app.appeals.models import RegradeRequest
from app.auth.service import create_token
from app.db.models import AuditEntry, Override
from app.db.session import unit_of_work
from tests.app.conftest import Api
from tests.attacks.conftest import SLUG, UPLOAD
from tests.support.pace import stretched

AT_ONCE = 8
ITEM = "b1.d_head"
BASE = f"/api/v1/assignments/{SLUG}"


def _at_once(call: Callable[[int], httpx.Response]) -> list[int]:
    """Status codes of AT_ONCE calls made together; a server exception counts as 500 (the
    test client raises what the server did not answer)."""
    def safe(n: int) -> int:
        try:
            return call(n).status_code
        except Exception:  # an unhandled server error
            return 500
    with ThreadPoolExecutor(AT_ONCE) as pool:
        return list(pool.map(safe, range(AT_ONCE)))


def _graded(either: Api, who: str, answer: str) -> int:
    with unit_of_work(either.sessions) as session:
        token = create_token(session, who, "student").token
    either.tokens[who] = token
    sent = either.client.post(UPLOAD, params={"wait": "true"}, json={"answers": {ITEM: answer}},
                              headers={"Authorization": f"Bearer {token}"})
    assert sent.status_code == 201, sent.text
    return int(sent.json()["id"])


def test_a_first_override_sent_at_once_is_stored_once(either: Api) -> None:
    sid = _graded(either, "twice-overridden", "64")
    codes = _at_once(lambda n: either.client.put(
        f"/api/v1/submissions/{sid}/items/{ITEM}/override",
        json={"points": str(n % 2), "comment": f"take {n}"}, headers=either.auth("prof")))
    assert codes == [200] * AT_ONCE, codes
    with unit_of_work(either.sessions) as session:
        assert session.scalar(select(func.count(Override.id)).where(
            Override.submission_id == sid, Override.item_id == ITEM)) == 1


def test_a_group_decision_sent_at_once_is_taken_once(either: Api) -> None:
    for n in range(3):
        _graded(either, f"grouped{n}", "63")
    groups = either.client.get(f"{BASE}/items/{ITEM}/groups", headers=either.auth("prof"))
    assert groups.status_code == 200, groups.text
    group = next(g["id"] for g in groups.json()["groups"] if g["needs_review"] or g["size"])
    codes = _at_once(lambda n: either.client.post(
        f"{BASE}/items/{ITEM}/groups/{group}/decision", json={"points": "1"},
        headers=either.auth("prof")))
    assert sorted(codes) == [200] + [409] * (AT_ONCE - 1), codes


def _published_and_asked(either: Api, who: str) -> int:
    """A graded submission of `who`, the grades published, and `who`'s regrade request on it."""
    sid = _graded(either, who, "60")
    assert either.client.post(f"{BASE}/publish", headers=either.auth("prof")).status_code == 200
    asked = either.client.post(f"/api/v1/submissions/{sid}/items/{ITEM}/regrade-requests",
                               json={"comment": "please look again"}, headers=either.auth(who))
    assert asked.status_code == 201, asked.text
    return int(asked.json()["id"])


def test_one_regrade_request_answered_at_once_is_answered_once(either: Api) -> None:
    request_id = _published_and_asked(either, "asker")
    codes = _at_once(lambda n: either.client.post(
        f"/api/v1/regrade-requests/{request_id}/answer",
        json={"reply": f"answer {n}", "points": "1"}, headers=either.auth("prof")))
    assert sorted(codes) == [200] + [409] * (AT_ONCE - 1), codes


def test_a_withdrawal_at_once_with_answers_never_leaves_an_answer_after_it(either: Api) -> None:
    """Withdrawing the grades closes open requests; an answer sent at the same moment is
    either taken before the withdrawal (and stays answered) or refused (409) after it, never
    stored on a request the withdrawal has closed, and the withdrawal is taken once."""
    request_id = _published_and_asked(either, "withdrawn-asker")

    def either_call(n: int) -> httpx.Response:
        if n % 2:
            return either.client.delete(f"{BASE}/publish", headers=either.auth("prof"))
        return either.client.post(f"/api/v1/regrade-requests/{request_id}/answer",
                                  json={"reply": f"answer {n}", "points": "1"},
                                  headers=either.auth("prof"))

    codes = _at_once(either_call)
    assert 500 not in codes, codes
    with unit_of_work(either.sessions) as session:
        request = session.get(RegradeRequest, request_id)
        assert request is not None
        log = [(e.action, e.detail) for e in session.scalars(
            select(AuditEntry).where(AuditEntry.action.in_(
                ["grades.withdraw", "regrade_request.answer", "regrade_request.close"]))
            .order_by(AuditEntry.id))]
    actions = [action for action, _ in log]
    assert actions.count("grades.withdraw") == 1, actions
    answered = [detail for action, detail in log if action == "regrade_request.answer"
                and detail.get("request_id") == request_id]
    if request.status == "answered":
        assert len(answered) == 1 and actions.index("regrade_request.answer") < actions.index(
            "grades.withdraw"), actions
    else:
        assert request.status == "closed" and not answered and request.reply is None, actions


def test_choosing_a_students_submissions_at_once_leaves_one_chosen(either: Api) -> None:
    first = _graded(either, "chooser", "64")
    with unit_of_work(either.sessions) as session:
        token = create_token(session, "chooser", "student").token
    second = either.client.post(UPLOAD, params={"wait": "true"},
                                json={"answers": {ITEM: "65"}},
                                headers={"Authorization": f"Bearer {token}"}).json()["id"]
    codes = _at_once(lambda n: either.client.put(
        f"/api/v1/submissions/{(first, second)[n % 2]}/chosen", headers=either.auth("prof")))
    assert set(codes) <= {200, 422}, codes  # 422: the assignment counts no chosen one
    listed = either.client.get(BASE + "/submissions", headers=either.auth("prof")).json()
    assert sum(1 for s in listed if s["id"] in (first, second) and s.get("chosen")) <= 1


def test_a_first_risk_target_set_at_once_is_taken(either: Api) -> None:
    codes = _at_once(lambda n: either.client.put(
        f"{BASE}/risk/questions/B1/target", json={"target": 0.05 + n / 100},
        headers=either.auth("prof")))
    assert codes == [200] * AT_ONCE, codes


def test_roster_imports_at_once_are_taken_and_the_server_answers_meanwhile(
        either: Api) -> None:
    roster = b"student_id,name\n" + b"".join(b"s%d,Student %d\n" % (n, n) for n in range(300))
    slowest, limit = 0.0, stretched(1.0)

    def imported(n: int) -> httpx.Response:
        path = "/api/v1/roster" if n % 2 else f"{BASE}/roster"
        return either.client.put(path, content=roster, headers={
            **either.auth("prof"), "content-type": "text/csv"})

    with ThreadPoolExecutor(1) as side:
        running = side.submit(_at_once, imported)
        while not running.done():
            began = time.monotonic()
            assert either.client.get("/healthz").status_code == 200
            slowest = max(slowest, time.monotonic() - began)
            time.sleep(0.05)
        codes = running.result()
    assert codes == [200] * AT_ONCE, codes
    assert slowest < limit, (slowest, limit)
    listed = either.client.get("/api/v1/roster", headers=either.auth("prof")).json()
    assert len(listed["students"]) == 300
