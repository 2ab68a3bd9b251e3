"""Idempotency-Key reuse: a key names one upload of one uploader. Another user's same key
stores their own upload; staff reusing a key for another student, or another assignment's key,
get 409 and never an answer about someone else's submission; nothing acknowledged is lost."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

from sqlalchemy import select

from app.db.models import Submission
from app.db.session import unit_of_work
from tests.app.conftest import Api
from tests.attacks.conftest import UPLOAD

DOCUMENT = {"answers": {"b1.d_head": "64"}}


def _upload(target: Api, who: str, key: str, **params: str) -> tuple[int, dict[str, object]]:
    answer = target.client.post(UPLOAD, json=DOCUMENT, params=params,
                                headers={**target.auth(who), "Idempotency-Key": key})
    body: dict[str, object] = answer.json()
    return answer.status_code, body


def _stored(target: Api, submission_id: object) -> tuple[int | None, str | None]:
    with unit_of_work(target.sessions) as session:
        row = session.execute(select(Submission.uploader_id, Submission.student)
                              .where(Submission.id == submission_id)).one()
        return row[0], row[1]


def test_two_students_with_the_same_key_each_store_their_own_upload(target: Api) -> None:
    status_a, alice = _upload(target, "alice", "shared-key-1")
    status_b, bob = _upload(target, "bob", "shared-key-1")
    assert (status_a, status_b) == (202, 202), (alice, bob)
    assert alice["id"] != bob["id"]
    assert _stored(target, alice["id"])[1] == "alice"
    assert _stored(target, bob["id"])[1] == "bob"
    again_status, again = _upload(target, "bob", "shared-key-1")
    assert again_status in (200, 202) and again["id"] == bob["id"]  # the first, replayed


def test_staff_reusing_a_key_for_another_student_is_409_not_the_first_students_submission(
        target: Api) -> None:
    status, first = _upload(target, "prof", "staff-key-1", student="carol")
    assert status == 202, first
    status, second = _upload(target, "prof", "staff-key-1", student="dave")
    assert status == 409, second
    assert "another student" in str(second["detail"])
    with unit_of_work(target.sessions) as session:
        students = set(session.scalars(select(Submission.student).where(
            Submission.idempotency_key == "staff-key-1")))
    assert students == {"carol"}  # dave's upload was refused, not silently merged into carol's


def test_the_same_key_raced_from_two_users_at_once_stores_one_each(target: Api) -> None:
    key = "raced-key-1"
    with ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda who: _upload(target, who, key),
                                ["alice", "bob"] * 4))
    by_user: dict[str, set[object]] = {"alice": set(), "bob": set()}
    for who, (status, body) in zip(["alice", "bob"] * 4, answers, strict=True):
        assert status in (200, 202), body
        by_user[who].add(body["id"])
    assert all(len(ids) == 1 for ids in by_user.values()), by_user
    assert by_user["alice"] != by_user["bob"]
    assert _stored(target, next(iter(by_user["alice"])))[1] == "alice"


def test_a_key_that_is_not_printable_ascii_is_4xx(target: Api) -> None:
    for key in ("\u202ekey", "k" * 201, "a\x00b", "tab\tkey"):
        headers = [(k.encode(), v.encode()) for k, v in target.auth("alice").items()]
        answer = target.client.post(UPLOAD, json=DOCUMENT, headers=[
            *headers, (b"Idempotency-Key", key.encode("utf-8"))])
        assert 400 <= answer.status_code < 500, (key[:10], answer.status_code)
