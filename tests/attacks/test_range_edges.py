"""Numbers and dates at the database's range edges, on SQLite and PostgreSQL (whose integer
columns are 32 bits, whose text takes no NUL, and whose timestamps end in year 294276): every
numeric field of every endpoint set to 2^31 - 1, 2^31, -2^31 - 1, 2^63 - 1, -1 and 0 and the
floats at a double's edges, every date field to the first and last moments Python can hold
(with offsets that push them past it), and user names holding NUL, surrogates and path
separators. Each is a 4xx problem or taken and read back, never a 500."""

from __future__ import annotations

import json
from typing import Any

import httpx

from tests.app.conftest import Api
from tests.attacks import test_oversized_numbers as sweep

EDGES = (2**31 - 1, 2**31, -(2**31) - 1, 2**63 - 1, -1, 0, 1e308, -1e308, 5e-324, 0.001)
DATES = ("0001-01-01T00:00:00+14:00", "9999-12-31T23:59:59-14:00", "9999-12-31T23:59:59Z",
         "0001-01-01T00:00:00Z", "2026-13-01T00:00:00Z", "1970-01-01T00:00:00+23:59")


def _dated(schema: dict[str, Any]) -> bool:
    return schema.get("format") == "date-time"


def _refused_unread(answer: httpx.Response) -> bool:
    """Refused by the request's validation, before any handler ran: nothing can have been
    stored, so reading back would read what the previous read-back read (nine requests in ten
    of the sweep; reading back after each was four fifths of the module's time)."""
    return answer.status_code == 422 and answer.headers.get("content-type", "").startswith(
        "application/problem+json") and answer.json().get("type", "").endswith(
        "/invalid-request")


def _sweep(target: Api, values: tuple[object, ...], wanted: Any) -> tuple[int, list[str]]:
    uploaded = target.client.post(
        "/api/v1/assignments/transformer-basics/submissions", params={"wait": "true"},
        json={"answers": {"b1.d_head": "64"}}, headers=target.auth("alice"))
    assert uploaded.status_code == 201, uploaded.text
    sweep.SAMPLES["submission_id"] = str(uploaded.json()["id"])
    spec = target.client.get("/openapi.json").json()
    tried, failures = 0, []
    for method, url, query, body, what in sweep._requests(spec, values, wanted):
        tried += 1
        answer = target.client.request(method, url, params=query, json=body,
                                       headers=target.auth("root"))
        if answer.status_code >= 500:
            failures.append(f"{method.upper()} {url} {what}: {answer.status_code}")
        if _refused_unread(answer):
            continue
        # whatever was taken must still read back (a stored date or number the database
        # holds but the reader cannot)
        for path in ("/api/v1/assignments/transformer-basics",
                     f"/api/v1/submissions/{sweep.SAMPLES['submission_id']}"):
            for who in ("prof", "alice"):
                back = target.client.get(path, headers=target.auth(who))
                if back.status_code >= 500:
                    failures.append(f"after {method.upper()} {url} {what}: GET {path} as "
                                    f"{who}: {back.status_code}")
    return tried, failures


def test_every_numeric_field_at_the_database_edges_is_4xx_or_taken(either: Api) -> None:
    tried, failures = _sweep(either, EDGES, sweep._numeric)
    assert tried > 30, tried
    assert not failures, "\n".join(failures)


def test_every_date_field_at_the_calendar_edges_is_4xx_or_taken(either: Api) -> None:
    tried, failures = _sweep(either, DATES, _dated)
    assert tried >= len(DATES) * 3, tried
    assert not failures, "\n".join(failures)


USER_NAMES = ["nul\x00name", "a/../../b", "..\\..\\etc", "rtl\u202eexe.txt", "zw\u200bsp",
              "\ud800lone", "tag\U000e0041", "x" * 200, " ", "tab\tname"]


def test_a_user_name_no_database_or_reader_takes_is_refused(either: Api) -> None:
    """Names go into every page and export staff read: a name that hides characters would show
    as another user's; one holding NUL is refused by PostgreSQL."""
    for name in USER_NAMES:
        answer = either.client.post(
            "/api/v1/tokens", content=json.dumps({"name": name, "role": "student"}),
            headers={**either.auth("root"), "content-type": "application/json"})
        assert answer.status_code < 500, (name, answer.status_code, answer.text[:200])
        if answer.status_code == 201:
            assert answer.json()["name"] == name.strip(), name
            assert name.strip().isprintable(), (name, "taken though it hides characters")
