"""Sessions, throttles and per-student limits, other spellings: session fixation (a session id
planted in the victim's browser before they sign in), a session outliving its sign-out or its
token, the sign-in throttle dodged by claiming another address in X-Forwarded-For, X-Real-IP
or Forwarded, a student's submission limit raced by a burst of concurrent uploads through the
API and the web form at once (on SQLite and PostgreSQL), and an Idempotency-Key a student
reuses for another assignment or another document."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.auth.service import create_token
from app.db.models import Submission
from app.db.session import unit_of_work
from tests.app.conftest import Api
from tests.attacks.conftest import SLUG, UPLOAD

COOKIE = "gf_session"


def _browser(target: Api, host: str = "192.0.2.50") -> TestClient:
    return TestClient(target.client.app, client=(host, 40000), follow_redirects=False)


def _sign_in(browser: TestClient, token: str) -> int:
    return browser.post("/sign-in", data={"token": token, "next": "/"}).status_code


def _who(browser: TestClient) -> str:
    page = browser.get("/")
    if 'name="token"' in page.text:
        return "nobody"
    shown = re.search(r"<span>([^<]*) \((?:staff|student)\)</span>", page.text)
    return shown.group(1) if shown else "someone"


def test_a_planted_session_id_is_never_the_victims_session(target: Api) -> None:
    attacker = _browser(target, "192.0.2.51")
    assert _sign_in(attacker, target.tokens["bob"]) == 303
    planted = attacker.cookies[COOKIE]
    for value in (planted, "made-up-session-id-0123456789"):
        victim = _browser(target, "192.0.2.52")
        answer = victim.post("/sign-in", data={"token": target.tokens["prof"], "next": "/"},
                             headers={"cookie": f"{COOKIE}={value}"})
        assert answer.status_code == 303
        fresh = answer.cookies.get(COOKIE)
        assert fresh and fresh != value, "the sign-in kept the planted session id"
        replay = _browser(target, "192.0.2.53")
        replay.cookies.set(COOKIE, value)
        assert _who(replay) == ("bob" if value == planted else "nobody")
        assert target.client.get("/api/v1/tokens", cookies={COOKIE: value}).status_code in (
            401, 403)


def test_a_session_ends_with_its_sign_out_and_with_its_token(target: Api) -> None:
    browser = _browser(target, "192.0.2.54")
    assert _sign_in(browser, target.tokens["alice"]) == 303
    old = browser.cookies[COOKIE]
    browser.post("/sign-out")
    stale = _browser(target, "192.0.2.55")
    stale.cookies.set(COOKIE, old)
    assert _who(stale) == "nobody"
    with unit_of_work(target.sessions) as session:
        issued = create_token(session, "revoked-student", "student")
    browser = _browser(target, "192.0.2.56")
    assert _sign_in(browser, issued.token) == 303
    revoked = target.client.delete(f"/api/v1/tokens/{issued.record.id}",
                                   headers=target.auth("root"))
    assert revoked.status_code == 200, revoked.text
    assert _who(browser) == "nobody"


FORWARDING = [
    lambda n: {"x-forwarded-for": f"203.0.113.{n % 250 + 1}"},
    lambda n: {"x-forwarded-for": f"203.0.113.{n % 250 + 1}, 198.51.100.7"},
    lambda n: {"x-real-ip": f"203.0.113.{n % 250 + 1}"},
    lambda n: {"forwarded": f"for=203.0.113.{n % 250 + 1};proto=https"},
    lambda n: {"true-client-ip": f"203.0.113.{n % 250 + 1}", "x-client-ip": f"10.0.0.{n}"},
]


def test_claiming_other_addresses_does_not_reset_the_sign_in_throttle(target: Api) -> None:
    for number, claim in enumerate(FORWARDING):
        browser = _browser(target, f"198.51.100.{100 + number}")
        codes = [browser.post("/sign-in", data={"token": f"guess-{number}-{n}", "next": "/"},
                              headers=claim(n)).status_code for n in range(75)]
        assert set(codes) <= {401, 429}, set(codes)
        assert codes.count(429) >= 10, (number, codes.count(429))


def _limited(target: Api, limit: int) -> None:
    answer = target.client.patch(f"/api/v1/assignments/{SLUG}/schedule",
                                 json={"max_submissions": limit}, headers=target.auth("prof"))
    assert answer.status_code == 200, answer.text


def _web_submit(target: Api, session_id: str, n: int) -> int:
    """The web app's upload form, posted with the session of `session_id` (on the app's own
    client: its upload path runs on the app's event loop)."""
    cookie = {"cookie": f"{COOKIE}={session_id}"}
    page = target.client.get(f"/assignments/{SLUG}/submit", headers=cookie)
    mark = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert mark is not None, page.text[:300]
    return target.client.post(f"/assignments/{SLUG}/submit", data={"csrf": mark.group(1)},
                              files={"file": ("a.txt", f"B1: {n}\n".encode(), "text/plain")},
                              headers=cookie).status_code


def test_a_burst_of_uploads_never_passes_the_submission_limit(either: Api) -> None:
    _limited(either, 3)
    with unit_of_work(either.sessions) as session:
        token = create_token(session, "racer", "student").token
    headers = {"Authorization": f"Bearer {token}"}
    signed = _browser(either, "192.0.2.60").post("/sign-in", data={"token": token, "next": "/"})
    session_id = signed.cookies[COOKIE]

    def api(n: int) -> int:
        return either.client.post(UPLOAD, json={"answers": {"b1.d_head": str(n)}},
                                  headers=headers).status_code

    with ThreadPoolExecutor(12) as pool:  # both doors at once
        api_calls = [pool.submit(api, n) for n in range(16)]
        web_calls = [pool.submit(_web_submit, either, session_id, 100 + n) for n in range(4)]
        codes = [call.result() for call in api_calls]
        web = [call.result() for call in web_calls]
    assert set(codes) <= {202, 409, 429, 503}, codes
    with unit_of_work(either.sessions) as session:
        stored = session.scalar(select(func.count()).select_from(Submission)
                                .where(Submission.student == "racer"))
    assert stored is not None and stored <= 3, (stored, codes, web)
    # refused only for being too many at once: one at a time, exactly the limit is reached
    later = [api(200 + n) for n in range(4)]
    with unit_of_work(either.sessions) as session:
        stored = session.scalar(select(func.count()).select_from(Submission)
                                .where(Submission.student == "racer"))
    assert stored == 3 and later[-1] == 409, (stored, later)
    _limited(either, 100_000)


def test_a_students_key_for_another_assignment_or_document_is_409(target: Api) -> None:
    headers = {**target.auth("bob"), "Idempotency-Key": "bob-key-7"}
    first = target.client.post(UPLOAD, json={"answers": {"b1.d_head": "64"}}, headers=headers)
    assert first.status_code == 202, first.text
    other_document = target.client.post(UPLOAD, json={"answers": {"b1.d_head": "65"}},
                                        headers=headers)
    other_assignment = target.client.post(
        "/api/v1/assignments/cs224n-attention/submissions",
        json={"answers": {"b1.d_head": "64"}}, headers=headers)
    assert other_document.status_code == 409, other_document.text
    assert other_assignment.status_code in (409, 403, 404), other_assignment.text
    assert "id" not in other_assignment.json() or other_assignment.json()["id"] != (
        first.json()["id"])
