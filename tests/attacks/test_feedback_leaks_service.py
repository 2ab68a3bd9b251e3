"""Hidden inputs in student feedback, through the service: what a student reads of their own
code submission (the submission's JSON, its results.json, its page) carries nothing the program
built from its inputs, nor how long it ran; staff read all of it."""

from __future__ import annotations

import json

from tests.app.conftest import Api
from tests.attacks.conftest import UPLOAD

PROGRAM = """
import numpy as np

def attention(Q, K, V):
    digits = str(int(abs(Q.sum()) * 1e6))
    name = "Leak" + "".join("qwertyuiop"[int(c)] for c in digits)
    raise type(name, (Exception,), {})(name)
"""


def test_a_student_reads_nothing_the_program_built_from_its_inputs(target: Api) -> None:
    document = json.dumps({"answers": {"B3": PROGRAM}}).encode()
    answer = target.client.post(
        UPLOAD,
        params={"wait": "true"},
        headers=target.auth("alice"),
        files={"file": ("answers.json", document, "application/json")},
    )
    assert answer.status_code == 201, answer.text[:300]
    sid = answer.json()["id"]
    own = target.client.get(f"/api/v1/submissions/{sid}", headers=target.auth("alice"))
    assert own.status_code == 200
    interface = next(i for i in own.json()["items"] if i["id"] == "b3.interface")
    assert "an exception of its own class" in interface["feedback"], interface
    results = target.client.get(
        f"/api/v1/submissions/{sid}/results.json", headers=target.auth("alice")
    )
    assert results.status_code == 200
    assert results.json()["execution_time"] is None
    page = target.client.get(f"/submissions/{sid}", headers=target.auth("alice"))
    for text in (own.text, results.text, page.text if page.status_code == 200 else ""):
        assert "Leak" not in text and "qwertyuiop" not in text
    staff = target.client.get(f"/api/v1/submissions/{sid}", headers=target.auth("prof"))
    assert "Leak" in staff.text
    staff_results = target.client.get(
        f"/api/v1/submissions/{sid}/results.json", headers=target.auth("prof")
    ).json()
    assert staff_results["execution_time"] is not None
