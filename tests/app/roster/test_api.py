"""The roster and the LMS exports over HTTP on the real app: import (course and assignment),
refusals that store nothing, the Canvas CSV, the gradebook and results.json."""

from __future__ import annotations

import csv
import io
from typing import Any

from tests.app.conftest import Api

SLUG = "transformer-basics"
BASE = f"/api/v1/assignments/{SLUG}"
ROSTER = (
    "\ufeffStudent ID,Full Name,E-mail,SIS ID,SIS Login ID,Section,Canvas ID\r\n"
    "alice,\"Liddell, Alice\",alice@uni.edu,S001,aliddell,L01,501\r\n"
    "carol,=HYPERLINK(\"x\"),carol@uni.edu,S003,ccarol,L02,503\r\n"
)


def _submit(api: Api, who: str, answers: dict[str, str]) -> int:
    response = api.client.post(
        f"{BASE}/submissions?wait=true", json={"answers": answers}, headers=api.auth(who)
    )
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _put(api: Api, url: str, body: bytes, who: str = "prof") -> Any:
    return api.client.put(url, content=body, headers={**api.auth(who),
                                                       "Content-Type": "text/csv"})


def _rows(text: str) -> list[list[str]]:
    return list(csv.reader(io.StringIO(text)))


def test_roster_import_and_exports(api: Api) -> None:
    response = _put(api, "/api/v1/roster", ROSTER.encode())
    assert response.status_code == 200, response.text
    assert response.json() == {"scope": "course", "students": 2, "ignored_columns": []}
    listed = api.client.get("/api/v1/roster", headers=api.auth("prof")).json()
    assert [s["student_id"] for s in listed["students"]] == ["alice", "carol"]
    assert listed["students"][0]["sis_login_id"] == "aliddell"

    first = _submit(api, "alice", {"B1": "d_head = 64"})
    latest = _submit(api, "alice", {"B1": "d_head = 64", "B2": "[0.665, 0.245, 0.090]"})
    bob = _submit(api, "bob", {"B1": "d_head = 32"})

    gradebook = list(csv.DictReader(io.StringIO(api.client.get(
        f"{BASE}/export.csv", headers=api.auth("prof")).text)))
    by_student = {r["student"]: r for r in gradebook}
    assert set(by_student) == {"alice", "bob", "carol"}
    assert by_student["alice"]["submission_id"] == str(latest) != str(first)
    assert by_student["alice"]["sis_user_id"] == "S001"
    assert by_student["bob"]["sis_user_id"] == "" and by_student["bob"]["submission_id"] == str(bob)
    assert by_student["carol"]["status"] == "no_submission"
    assert by_student["carol"]["final_total"] == ""
    # formula-like text is defused
    assert by_student["carol"]["name"].startswith("'=")

    response = api.client.get(f"{BASE}/canvas.csv?canvas_assignment_id=4242",
                              headers=api.auth("prof"))
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    rows = _rows(response.text)
    assert len(rows[0]) == 6 and rows[0][5].endswith(" (4242)")
    assert rows[0][:5] == ["Student", "ID", "SIS User ID", "SIS Login ID", "Section"]
    assert rows[1][0].strip() == "Points Possible" and rows[1][5] == "100"
    canvas = {r[3] or r[0]: r for r in rows[2:]}
    assert canvas["aliddell"][:5] == ["Liddell, Alice", "501", "S001", "aliddell", "L01"]
    assert canvas["aliddell"][5] == by_student["alice"]["final_total"] != ""
    assert canvas["ccarol"][5] == ""  # on the roster, no submission
    assert canvas["bob"][1:5] == ["", "", "", ""]  # not on the roster
    assert canvas["bob"][5] == by_student["bob"]["final_total"]

    no_id = _rows(api.client.get(f"{BASE}/canvas.csv?points_possible=false",
                                 headers=api.auth("prof")).text)
    assert "(" not in no_id[0][5] and no_id[1][0] != "    Points Possible"
    bad_id = api.client.get(f"{BASE}/canvas.csv?canvas_assignment_id=12ab",
                            headers=api.auth("prof"))
    assert bad_id.status_code == 422
    assert bad_id.headers["content-type"] == "application/problem+json"

    results = api.client.get(f"{BASE}/results.json", headers=api.auth("prof")).json()
    students = {s["student_id"]: s for s in results["students"]}
    assert students["carol"]["results"] is None and students["carol"]["on_roster"]
    assert students["bob"]["sis_user_id"] == "" and not students["bob"]["on_roster"]
    alice = students["alice"]
    assert alice["submission_id"] == latest and alice["sis_user_id"] == "S001"
    assert "execution_time" in alice["results"]
    for test in alice["results"]["tests"]:
        assert {"score", "max_score", "output", "visibility", "name"} <= set(test)
    single = api.client.get(f"/api/v1/submissions/{latest}/results.json",
                            headers=api.auth("prof")).json()
    assert single["extra_data"]["lms"]["sis_login_id"] == "aliddell"
    own = api.client.get(f"/api/v1/submissions/{latest}/results.json",
                         headers=api.auth("alice")).json()
    assert "lms" not in own["extra_data"]

    # Students see none of it.
    for url in (f"{BASE}/canvas.csv", f"{BASE}/results.json", "/api/v1/roster"):
        assert api.client.get(url, headers=api.auth("alice")).status_code == 403


def test_a_bad_row_stores_nothing(api: Api) -> None:
    good = b"student_id,name\nzed,Zed\n"
    assert _put(api, f"{BASE}/roster", good).status_code == 200
    before = api.client.get(f"{BASE}/roster", headers=api.auth("prof")).json()
    bad = b"student_id,name\nyan,Yan\nxu,Xu\nyan,Again\n"
    response = _put(api, f"{BASE}/roster", bad)
    assert response.status_code == 422
    assert response.headers["content-type"] == "application/problem+json"
    problem = response.json()
    assert "row 4" in problem["detail"] and problem["row"] == 4
    assert api.client.get(f"{BASE}/roster", headers=api.auth("prof")).json() == before

    assert _put(api, f"{BASE}/roster", b"student_id\nal\xffice\n").status_code == 422
    assert _put(api, "/api/v1/roster", good, who="alice").status_code == 403
    assert _put(api, "/api/v1/assignments/nope/roster", good).status_code == 404
    huge = b"student_id\n" + b"s\n" * (api.settings.max_request_bytes // 2 + 10)
    assert _put(api, "/api/v1/roster", huge).status_code == 413


def test_an_assignment_roster_replaces_the_course_roster_for_its_exports(api: Api) -> None:
    course = b"student_id,SIS User ID\nalice,COURSE-1\n"
    assert _put(api, "/api/v1/roster", course).status_code == 200
    own = b"student_id,SIS User ID\nalice,OWN-1\n"
    assert _put(api, f"{BASE}/roster", own).status_code == 200
    rows = list(csv.DictReader(io.StringIO(api.client.get(
        f"{BASE}/export.csv", headers=api.auth("prof")).text)))
    assert {r["student"]: r["sis_user_id"] for r in rows}["alice"] == "OWN-1"
    assert "zed" not in {r["student"] for r in rows}  # replaced by this import
