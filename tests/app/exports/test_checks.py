"""Exports say what is not final before anyone imports it: rows still in review, rows without a
student, no roster, unpublished grades (on the exports page and in `X-Export-Warnings`), and
leave such rows out on request (`rows=final`); the Canvas assignment id from the page's form."""

from __future__ import annotations

import csv
import io
import re

from fastapi.testclient import TestClient

from app.db.models import Submission
from app.db.session import unit_of_work
from tests.app.conftest import Api

SLUG = "transformer-basics"
BASE = f"/api/v1/assignments/{SLUG}"
PAGE = f"/assignments/{SLUG}/exports"
ROSTER = "Student ID,Full Name,SIS ID,Canvas ID\r\nalice,Alice L,S001,501\r\nbob,Bob B,S002,502\r\n"


def _submit(api: Api, answers: dict[str, str], student: str) -> int:
    response = api.client.post(f"{BASE}/submissions?wait=true&student={student}",
                               json={"answers": answers}, headers=api.auth("prof"))
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _filed_under_no_one(api: Api, answers: dict[str, str]) -> int:
    """A submission without a student, as stored before staff uploads had to name one (no way
    in makes one now: the API refuses such an upload)."""
    refused = api.client.post(f"{BASE}/submissions", json={"answers": answers},
                              headers=api.auth("prof"))
    assert refused.status_code == 422 and "?student=" in refused.json()["detail"]
    sid = _submit(api, answers, "placeholder")
    with unit_of_work(api.sessions) as session:
        submission = session.get(Submission, sid)
        assert submission is not None
        submission.student = None
    return sid


def _students(text: str) -> list[str]:
    return [row[0] for row in csv.reader(io.StringIO(text))][1:]


def test_exports_warn_and_leave_out_rows_that_are_not_final(api: Api) -> None:
    _submit(api, {"B1": "d_head = 64"}, "alice")
    _submit(api, {"B1": "d_head = 12 maybe 64"}, "bob")  # two readings: needs review
    nobody = _filed_under_no_one(api, {"B1": "d_head = 64"})
    prof = TestClient(api.client.app)
    prof.post("/sign-in", data={"token": api.tokens["prof"], "next": "/"})
    page = prof.get(PAGE)
    assert page.status_code == 200
    warnings = page.text.split('id="export-warnings"')[1].split("</div>")[0]
    for words in ["No roster is loaded", "1 row(s) still need review",
                  "1 row(s) have no student", "Grades are not published"]:
        assert words in warnings, words
    assert "Still in review: bob" in warnings and f"submission-{nobody}" in warnings
    assert 'name="canvas_assignment_id"' in page.text and 'value="final"' in page.text

    every = api.client.get(f"{BASE}/canvas.csv", headers=api.auth("prof"))
    assert every.status_code == 200 and "still need review" in every.headers["x-export-warnings"]
    assert {"alice", "bob", f"submission-{nobody}"} <= set(_students(every.text))
    # What the page's form sends (with this browser session): an id, and the rows left out.
    final = prof.get(f"{BASE}/canvas.csv", params={"canvas_assignment_id": "4417",
                                                   "rows": "final"})
    assert final.status_code == 200, final.text
    assert final.text.splitlines()[0].endswith("(4417)")
    names = _students(final.text)
    assert "bob" not in names and f"submission-{nobody}" not in names and "alice" in names
    assert "2 row(s) left out" in final.headers["x-export-warnings"]
    empty_id = prof.get(f"{BASE}/canvas.csv", params={"canvas_assignment_id": "", "rows": "all"})
    assert empty_id.status_code == 200 and not re.search(r"\(\d*\)", empty_id.text.splitlines()[0])
    gradebook = prof.get(f"{BASE}/export.csv", params={"rows": "final",
                                                      "canvas_assignment_id": ""})
    assert gradebook.status_code == 200 and _students(gradebook.text) == ["alice"]
    assert api.client.get(f"{BASE}/export.csv?rows=some",
                          headers=api.auth("prof")).status_code == 422

    loaded = api.client.put("/api/v1/roster", content=ROSTER.encode(),
                            headers={**api.auth("prof"), "Content-Type": "text/csv"})
    assert loaded.status_code == 200, loaded.text
    after = prof.get(PAGE).text.split('id="export-warnings"')[1].split("</div>")[0]
    assert "No roster" not in after and "have no student or are not on the roster" in after
    canvas = api.client.get(f"{BASE}/canvas.csv?rows=final", headers=api.auth("prof")).text
    assert [r[:3] for r in csv.reader(io.StringIO(canvas))][2:] == [["Alice L", "501", "S001"]]
