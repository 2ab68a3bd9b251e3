"""Regrade requests raced: a student fires requests on many different items of their counted
submission at once, to pass the per-assignment limit (3 as shipped) that each request checks
before it is stored. On SQLite and PostgreSQL: never more stored than the limit, every answer
a 201 or a 409 (never a 500), and the limit still reads right afterwards."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

from sqlalchemy import func, select

from app.appeals.models import RegradeRequest
from app.auth.service import create_token
from app.db.session import unit_of_work
from tests.app.conftest import Api
from tests.attacks.conftest import SLUG, UPLOAD

LIMIT = 3  # GRADEFORMER_REGRADE_REQUESTS_PER_ASSIGNMENT as shipped


@contextmanager
def published(either: Api, student: str, answers: dict[str, str]
              ) -> Iterator[tuple[int, Callable[[str, str], int], dict[str, str]]]:
    """The student's graded submission of `answers`, the assignment published meanwhile: its id,
    a way to ask (item, comment) -> the status code of a regrade request, the student's headers."""
    with unit_of_work(either.sessions) as session:
        token = create_token(session, student, "student").token
    headers = {"Authorization": f"Bearer {token}"}
    answer = either.client.post(UPLOAD, params={"wait": "true"}, headers=headers,
                                json={"answers": answers})
    assert answer.status_code == 201, answer.text
    sid = answer.json()["id"]
    opened = either.client.post(f"/api/v1/assignments/{SLUG}/publish",
                                headers=either.auth("prof"))
    assert opened.status_code == 200, opened.text

    def ask(item: str, comment: str) -> int:
        return either.client.post(f"/api/v1/submissions/{sid}/items/{item}/regrade-requests",
                                  json={"comment": comment}, headers=headers).status_code

    try:
        yield sid, ask, headers
    finally:
        either.client.delete(f"/api/v1/assignments/{SLUG}/publish", headers=either.auth("prof"))


def stored_requests(either: Api, sid: int) -> Any:
    with unit_of_work(either.sessions) as session:
        return session.scalar(select(func.count()).select_from(RegradeRequest)
                              .where(RegradeRequest.submission_id == sid))


def test_a_burst_of_regrade_requests_never_passes_the_limit(either: Api) -> None:
    answers = {"b1.d_head": "65", "b1.per_matrix": "1", "b1.total": "2", "B2": "3"}
    with published(either, "asker", answers) as (sid, ask, headers):
        items = [i["id"] for i in either.client.get(f"/api/v1/submissions/{sid}",
                                                     headers=headers).json()["items"]][:10]
        with ThreadPoolExecutor(10) as pool:
            codes = list(pool.map(lambda item: ask(item, "please look again"), items))
        stored = stored_requests(either, sid)
        assert set(codes) <= {201, 409}, codes
        assert stored is not None and stored <= LIMIT, (stored, codes)
        assert codes.count(201) == stored, (stored, codes)


def test_the_same_regrade_request_fired_at_once_is_stored_once(either: Api) -> None:
    """Ten requests on one item at once: one is stored, the others 409 (one open request per
    item), never a 500 or a second row."""
    with published(either, "repeater", {"b1.d_head": "65"}) as (sid, ask, _):
        with ThreadPoolExecutor(10) as pool:
            codes = list(pool.map(lambda _: ask("b1.d_head", "again"), range(10)))
        stored = stored_requests(either, sid)
        assert sorted(codes) == [201] + [409] * 9, codes
        assert stored == 1, (stored, codes)
