"""Numbers spelled to break the reader or the grader, through the API on SQLite and
PostgreSQL: JSON's non-standard NaN and Infinity and numbers past a double (1e999999) as
answer values, the student id or the edition; numbers in answer text with thousands of
digits, a 4,000-digit exponent, a fraction of 4,000-digit numbers, hex floats, digit
separators. Each upload is graded or refused 4xx, every answer reads back for staff and the
student, and no item is a grader_error: a number past a float's range written in an answer
was an OverflowError in the numeric grader (a grader_error, a fault of ours shown to staff as
such) before."""

from __future__ import annotations

import json

import pytest

from tests.app.conftest import Api
from tests.attacks.conftest import UPLOAD

LITERALS = [b"NaN", b"Infinity", b"-Infinity", b"1e999999", b"-1e999999", b"1e-999999"]
SHAPES = [b'{"answers": {"b1.d_head": %s}}', b'{"answers": {"B1": "d_head = 64", "x": [%s]}}',
          b'{"student_id": %s, "answers": {"b1.d_head": "64"}}',
          b'{"answers": {"b1.d_head": "64"}, "handout": %s}']
SPELLED = ["9" * 5000, "1/" + "3" * 4000, "3" * 4000 + "/7", "1e" + "9" * 4000, "9" * 400 +
           "e300", "$\\frac{" + "7" * 3000 + "}{3}$", "0x1p-1074", "1_000", "64 " * 20_000,
           "d_head = 64, not " + "9" * 1000]


def _readable(api: Api, sid: int) -> dict[str, object]:
    for who in ("prof", "alice"):
        answer = api.client.get(f"/api/v1/submissions/{sid}", headers=api.auth(who))
        assert answer.status_code == 200, (who, answer.status_code, answer.text[:200])
    return api.client.get(f"/api/v1/submissions/{sid}", headers=api.auth("prof")).json()


@pytest.mark.parametrize("literal", LITERALS)
def test_json_number_literals_are_read_or_refused(either: Api, literal: bytes) -> None:
    for shape in SHAPES:
        sent = either.client.post(UPLOAD, params={"wait": "true"}, content=shape % literal,
                                  headers={**either.auth("alice"),
                                           "content-type": "application/json"})
        assert sent.status_code in (201, 422), (shape, sent.status_code, sent.text[:200])
        if sent.status_code == 201:
            body = _readable(either, sent.json()["id"])
            assert body["status"] != "grader_error", body


def test_numbers_past_a_floats_range_in_answers_are_graded(either: Api) -> None:
    for number in SPELLED:
        for document, name in ((json.dumps({"answers": {"b1.d_head": number,
                                                        "b1.per_matrix": number}}).encode(),
                                "a.json"),
                               (f"B1: d_head = {number}\n".encode(), "a.txt")):
            sent = either.client.post(UPLOAD, params={"wait": "true"},
                                      files={"file": (name, document)},
                                      headers=either.auth("alice"))
            assert sent.status_code == 201, (number[:20], sent.status_code, sent.text[:200])
            body = _readable(either, sent.json()["id"])
            broken = [i["id"] for i in body["items"]  # type: ignore[attr-defined]
                      if i["status"] == "grader_error"]
            assert body["status"] != "grader_error" and not broken, (number[:20], name, broken)
