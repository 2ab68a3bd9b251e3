"""Strings no UTF-8 encoder takes, or that a database or a cache key chokes on, in every part of
an upload a student controls (answer values, answer keys, the student id field, the file name):
the upload is graded (or refused with a 4xx), never a grader_error and never a 500, with the
result cache on, and a second identical upload (served from the cache) agrees."""

from __future__ import annotations

from tests.app.conftest import Api
from tests.attacks.conftest import UPLOAD

ODD = ["\\ud800", "\\udfff\\ud800", "\\u0000", "\\ud83d\\ude00\\ud800", "\\ufffe\\uffff",
       "\\u001b]0;t\\u0007"]


def test_unencodable_answers_are_graded_the_same_twice(target: Api) -> None:
    odd = "".join(ODD)  # all at once: two gradings, not twelve
    document = ('{"student_id": "x' + odd + '", "answers": {"b1.d_head": "64' + odd + '", "b2'
                + odd + '": "the queries' + odd + '", "b3": "' + ODD[0] + '"}}').encode()
    statuses = []
    for _ in range(2):  # the second is served from the result cache
        answer = target.client.post(
            UPLOAD, params={"wait": "true"},
            files={"file": ("answers" + odd.replace("\\", "") + ".json", document,
                            "application/json")},
            headers=target.auth("alice"))
        assert answer.status_code in (201, 422), answer.text[:300]
        if answer.status_code == 422:
            return
        body = answer.json()
        assert body["status"] != "grader_error", body
        staff = target.client.get(f"/api/v1/submissions/{body['id']}",
                                  headers=target.auth("prof")).json()
        assert not [i for i in staff["items"] if i["status"] == "grader_error"], staff["items"]
        statuses.append([(i["id"], i["status"], i.get("points")) for i in staff["items"]])
    assert statuses[0] == statuses[1]
