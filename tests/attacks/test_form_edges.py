"""Numbers, dates and names at their edges through the web forms and concurrent first uses, on
SQLite and PostgreSQL: the schedule form with 9-digit limits, penalties of 1e-1000 and 1e+2,
dates at year 1 and 9999 with offsets; an override typed as 1e-30, -0, 0.001 or 30 digits;
the same new user's token created eight times at once. Each is a 4xx (a page saying why) or
taken and read back, never a 500."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest
from fastapi.testclient import TestClient

from tests.app.conftest import Api
from tests.attacks.conftest import SLUG, UPLOAD

SCHEDULES = [
    {"max_submissions": "999999999"}, {"max_submissions": "2147483648"},
    {"late_penalty_percent": "1e-1000"}, {"late_penalty_percent": "1e+2"},
    {"late_penalty_percent": "99.999999999999999999"},
    {"due_at": "0001-01-01T00:00+14:00"}, {"due_at": "9999-12-31T23:59-14:00"},
    {"opens_at": "2026-01-01T00:00", "due_at": "2026-02-30T00:00+00:00"},
]
POINTS = ["1e-30", "-0", "0.001", "9" * 30, "1e+1", "0.005", "-1e-2"]


def _staff_page_client(target: Api) -> tuple[dict[str, str], str]:
    browser = TestClient(target.client.app, follow_redirects=False)
    signed = browser.post("/sign-in", data={"token": target.tokens["prof"], "next": "/"})
    cookie = {"cookie": f"gf_session={signed.cookies['gf_session']}"}
    page = target.client.get(f"/assignments/{SLUG}/settings", headers=cookie)
    mark = re.search(r'name="csrf" value="([^"]+)"', page.text)
    assert mark is not None, page.text[:300]
    return cookie, mark.group(1)


@pytest.mark.parametrize("fields", SCHEDULES, ids=lambda f: ",".join(f.values()))
def test_the_schedule_form_at_its_edges_is_refused_or_taken(either: Api,
                                                            fields: dict[str, str]) -> None:
    cookie, csrf = _staff_page_client(either)
    answer = either.client.post(f"/assignments/{SLUG}/settings/schedule", headers=cookie,
                                data={"csrf": csrf, "counts": "latest", **fields},
                                follow_redirects=False)
    assert answer.status_code in (303, 422), (fields, answer.status_code)
    for who in ("prof", "alice"):
        back = either.client.get(f"/api/v1/assignments/{SLUG}", headers=either.auth(who))
        assert back.status_code == 200, (fields, who, back.status_code)
    assert either.client.get(f"/assignments/{SLUG}/settings", headers=cookie).status_code == 200


def test_an_override_typed_at_the_edges_is_refused_or_taken(either: Api) -> None:
    uploaded = either.client.post(UPLOAD, params={"wait": "true"},
                                  json={"answers": {"b1.d_head": "64"}},
                                  headers=either.auth("alice"))
    sid = uploaded.json()["id"]
    cookie, csrf = _staff_page_client(either)
    for points in POINTS:
        answer = either.client.post(
            f"/submissions/{sid}/override/set", headers=cookie,
            data={"csrf": csrf, "item_id": "b1.d_head", "points": points, "comment": "x"},
            follow_redirects=False)
        assert answer.status_code in (303, 422), (points, answer.status_code)
        for who in ("prof", "alice"):
            back = either.client.get(f"/api/v1/submissions/{sid}", headers=either.auth(who))
            assert back.status_code == 200, (points, who, back.status_code)


def test_one_new_users_token_created_eight_times_at_once(either: Api) -> None:
    def create(_: int) -> int:
        return either.client.post("/api/v1/tokens", json={"name": "twin", "role": "student"},
                                  headers=either.auth("root")).status_code

    with ThreadPoolExecutor(8) as pool:
        codes = list(pool.map(create, range(8)))
    assert set(codes) <= {201, 409}, codes
    assert 201 in codes
