"""Jobs piled up while grading is busy, on the Celery path (every worker busy: here none reads
the queue), on SQLite and PostgreSQL. A student's upload is in progress until it is graded,
not only while its body arrives: one who uploads within the rate (20 a minute) while their
jobs wait would otherwise keep adding waiting jobs, and from their 64th on the broker serves
them first in, first out with other such students' (app/worker/fair_redis.py) instead of in
turns. A student keeps at most four waiting, through the API and the web form, to one
assignment or several, one at a time or all at once: an upload past them is held back until one
of theirs is graded (a student uploading one file after another just waits for their own jobs),
and refused 429 if none is within the hold, nothing of it stored; another student is not
refused, and staff filing work for the student are exempt."""

from __future__ import annotations

import re
import time
from concurrent.futures import ThreadPoolExecutor

import redis
from fastapi.testclient import TestClient
from sqlalchemy import func, select, update

from app.auth.service import create_token
from app.db.models import Submission
from app.db.session import unit_of_work
from app.worker import fair_redis
from tests.attacks.conftest import HOLD_SECONDS, SLUG, UPLOAD, Stalled
from tests.support.broker import BROKER

IN_PROGRESS = 4  # uploads_in_progress as shipped
COOKIE = "gf_session"
OTHER = "/api/v1/assignments/cs224n-attention/submissions"


def _student(stalled: Stalled, name: str) -> dict[str, str]:
    with unit_of_work(stalled.api.sessions) as session:
        return {"Authorization": f"Bearer {create_token(session, name, 'student').token}"}


def _upload(stalled: Stalled, headers: dict[str, str], n: int, path: str = UPLOAD) -> int:
    return stalled.api.client.post(path, json={"answers": {"b1.d_head": str(n)}},
                                   headers=headers).status_code


def _waiting(stalled: Stalled, student: str) -> int:
    with unit_of_work(stalled.api.sessions) as session:
        return int(session.scalar(select(func.count(Submission.id)).where(
            Submission.student == student, Submission.status.in_(("queued", "grading")))) or 0)


def _published_levels(stalled: Stalled, expected: int) -> dict[int, int]:
    """priority level -> messages waiting on it, once `expected` are published (or 10 s)."""
    broker = redis.Redis.from_url(BROKER)
    deadline = time.monotonic() + 10
    while True:
        levels = {p: int(broker.llen(f"{stalled.queue}:{p}" if p else stalled.queue))
                  for p in range(fair_redis.PRIORITIES)}
        if sum(levels.values()) >= expected or time.monotonic() > deadline:
            return {p: n for p, n in levels.items() if n}
        time.sleep(0.05)


def _web_submit(stalled: Stalled, token: str) -> int:
    browser = TestClient(stalled.api.client.app, client=("192.0.2.80", 40000),
                         follow_redirects=False)
    signed = browser.post("/sign-in", data={"token": token, "next": "/"})
    cookie = {"cookie": f"{COOKIE}={signed.cookies[COOKIE]}"}
    page = stalled.api.client.get(f"/assignments/{SLUG}/submit", headers=cookie)
    mark = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert mark is not None, page.text[:300]
    return stalled.api.client.post(
        f"/assignments/{SLUG}/submit", data={"csrf": mark.group(1)},
        files={"file": ("a.txt", b"B1: 64\n", "text/plain")},
        headers={**cookie, "Accept": "application/json"}).status_code


def test_a_student_keeps_at_most_four_jobs_waiting_on_every_door(stalled: Stalled) -> None:
    with unit_of_work(stalled.api.sessions) as session:
        token = create_token(session, "piler", "student").token
    piler = {"Authorization": f"Bearer {token}"}
    codes = [_upload(stalled, piler, n) for n in range(IN_PROGRESS + 6)]
    assert codes == [202] * IN_PROGRESS + [429] * 6, codes
    refused = stalled.api.client.post(UPLOAD, json={"answers": {"b1.d_head": "1"}},
                                      headers=piler)
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0, refused.text
    assert _upload(stalled, piler, 99, OTHER) == 429  # another assignment: the same student
    assert _web_submit(stalled, token) == 429  # the web form too
    assert _waiting(stalled, "piler") == IN_PROGRESS
    # on the broker: one job at each of the turns 0 to 3, none further back
    assert _published_levels(stalled, IN_PROGRESS) == {p: 1 for p in range(IN_PROGRESS)}
    # another student is not held up by them; staff filing for the student are exempt
    assert _upload(stalled, _student(stalled, "bystander"), 1) == 202
    prof = stalled.api.auth("prof")
    assert [_upload(stalled, prof, n, f"{UPLOAD}?student=piler") for n in range(3)] == [202] * 3
    # one of theirs graded (a worker finished it): one more may wait
    with unit_of_work(stalled.api.sessions) as session:
        oldest = session.scalar(select(func.min(Submission.id)).where(
            Submission.student == "piler", Submission.uploader_id.is_not(None)))
        session.execute(update(Submission).where(Submission.id == oldest)
                        .values(status="graded"))
    assert [_upload(stalled, piler, n) for n in range(2)] == [202, 429]


def test_an_upload_held_back_is_stored_once_one_of_theirs_is_graded(stalled: Stalled) -> None:
    headers = _student(stalled, "patient")
    assert [_upload(stalled, headers, n) for n in range(IN_PROGRESS)] == [202] * IN_PROGRESS
    with ThreadPoolExecutor(1) as pool:
        held = pool.submit(_upload, stalled, headers, 99)
        time.sleep(HOLD_SECONDS / 3)
        assert not held.done()  # neither stored nor refused yet
        with unit_of_work(stalled.api.sessions) as session:
            oldest = session.scalar(select(func.min(Submission.id)).where(
                Submission.student == "patient"))
            session.execute(update(Submission).where(Submission.id == oldest)
                            .values(status="graded"))
        assert held.result() == 202
    assert _waiting(stalled, "patient") == IN_PROGRESS


def test_a_burst_at_once_through_both_doors_stores_at_most_four(stalled: Stalled) -> None:
    with unit_of_work(stalled.api.sessions) as session:
        token = create_token(session, "burster", "student").token
    headers = {"Authorization": f"Bearer {token}"}
    with ThreadPoolExecutor(12) as pool:
        api = [pool.submit(_upload, stalled, headers, n) for n in range(16)]
        web = [pool.submit(_web_submit, stalled, token) for _ in range(3)]
        codes = [call.result() for call in api + web]
    assert set(codes) <= {202, 201, 429}, codes
    assert codes.count(202) + codes.count(201) <= IN_PROGRESS, codes
    assert _waiting(stalled, "burster") <= IN_PROGRESS
