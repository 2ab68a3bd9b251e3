"""The HTTP API through the real app: uploads, grading, auth matrix, problem+json errors."""

from __future__ import annotations

import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db.models import Submission
from app.db.session import unit_of_work
from graders.registry import get_grader
from graders.rubric import BUNDLED_RUBRICS, load_rubric
from tests.app.conftest import Api
from tests.shared_data import shared_path

SLUG = "transformer-basics"
UPLOAD = f"/api/v1/assignments/{SLUG}/submissions"
ITEMS = [item.id for item in load_rubric(BUNDLED_RUBRICS / f"{SLUG}.yaml").rubric.items()]
PROBLEM = "application/problem+json"


def _count(api: Api) -> int:
    with unit_of_work(api.sessions) as session:
        return int(session.scalar(select(func.count(Submission.id))) or 0)


def _wait_final(api: Api, submission_id: int, who: str, timeout: float = 120) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while True:
        body: dict[str, Any] = api.client.get(
            f"/api/v1/submissions/{submission_id}", headers=api.auth(who)
        ).json()
        if body["status"] not in ("queued", "grading") or time.monotonic() > deadline:
            return body
        time.sleep(0.2)


def _problem(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith(PROBLEM)
    body: dict[str, Any] = response.json()
    assert body["status"] == status and body["title"] and body["detail"]
    return body


def test_health_docs_and_openapi(api: Api) -> None:
    health = api.client.get("/healthz").json()
    assert (health["status"], health["database"], health["disk"]) == ("ok", "ok", "ok")
    assert "swagger" in api.client.get("/docs").text.lower()
    paths = api.client.get("/openapi.json").json()["paths"]
    assert "/api/v1/assignments/{slug}/submissions" in paths
    assert "/api/v1/assignments/{slug}/dashboard" in paths


def test_seed_upload_is_graded_with_one_result_per_item(api: Api) -> None:
    seed = shared_path("seeds", "000_02a58be4e6a68d79.txt").read_bytes()
    response = api.client.post(
        UPLOAD, files={"file": ("000.txt", seed, "text/plain")}, headers=api.auth("alice")
    )
    assert response.status_code == 202, response.text
    accepted = response.json()
    assert set(accepted) == {"id", "status"} and accepted["status"] == "queued"
    body = _wait_final(api, accepted["id"], "alice")
    assert body["status"] in ("graded", "needs_review", "pending"), body
    staff = api.client.get(f"/api/v1/submissions/{accepted['id']}", headers=api.auth("prof"))
    assert [i["id"] for i in staff.json()["items"]] == ITEMS
    # unreleased, the student reads each item by its place in its question (A1 part 1)
    assert [i["id"].split()[0].split(".")[0].lower() for i in body["items"]] == [
        i.split(".")[0] for i in ITEMS]
    assert body["student"] == "alice" and body["filename"] == "000.txt"
    assert body["sha256"] and body["size"] == len(seed)
    assert all(i["feedback"] or i["status"] == "graded" for i in body["items"])
    assert body["max_points"] == 100

    # Another student: as if it did not exist. No token: 401.
    _problem(api.client.get(f"/api/v1/submissions/{accepted['id']}", headers=api.auth("bob")), 404)
    no_token = api.client.get(f"/api/v1/submissions/{accepted['id']}")
    _problem(no_token, 401)
    assert no_token.headers["www-authenticate"] == "Bearer"
    _problem(api.client.get("/api/v1/submissions/1", headers={"Authorization": "Bearer nope"}), 401)
    listed = api.client.get(UPLOAD, headers=api.auth("bob")).json()
    assert accepted["id"] not in [s["id"] for s in listed]
    assert accepted["id"] in [
        s["id"] for s in api.client.get(UPLOAD, headers=api.auth("alice")).json()
    ]
    assert accepted["id"] in [
        s["id"] for s in api.client.get(UPLOAD, headers=api.auth("prof")).json()
    ]
    assert (
        api.client.get(
            f"/api/v1/submissions/{accepted['id']}", headers=api.auth("prof")
        ).status_code
        == 200
    )


def test_dashboard_for_instructors_only(api: Api) -> None:
    api.client.post(f"{UPLOAD}?wait=true", json={"answers": {"B1": "64"}}, headers=api.auth("bob"))
    url = f"/api/v1/assignments/{SLUG}/dashboard"
    _problem(api.client.get(url, headers=api.auth("alice")), 403)
    _problem(api.client.get(url), 401)
    body = api.client.get(url, headers=api.auth("prof")).json()
    assert body["submissions"] >= 1 and body["max_points"] == 100
    assert {"mean", "median", "std", "histogram", "status_counts", "items"} <= set(body)
    assert len(body["histogram"]) == 10
    assert sum(body["status_counts"].values()) == body["submissions"]
    assert [i["id"] for i in body["items"]] == ITEMS
    assert {"mean", "full_credit_rate", "common_wrong_answers"} <= set(body["items"][0])
    _problem(api.client.get("/api/v1/assignments/nope/dashboard", headers=api.auth("prof")), 404)


def test_dashboard_page_is_self_contained(api: Api) -> None:
    url = f"/assignments/{SLUG}/dashboard"
    browser = TestClient(api.client.app)  # its own cookie jar, the running app
    form = browser.get(url)
    assert form.status_code == 200 and 'name="token"' in form.text
    signed_in = browser.post("/sign-in", data={"token": api.tokens["prof"], "next": url})
    assert signed_in.status_code == 200 and signed_in.url.path == url
    page = browser.get(url)
    assert page.status_code == 200 and "<svg" not in page.text.split("<script")[0]
    assert "application/json" in page.text and "createElementNS" in page.text
    assert "http://" not in page.text.replace("http://www.w3.org/2000/svg", "")
    assert "https://" not in page.text
    student = TestClient(api.client.app)
    student.post("/sign-in", data={"token": api.tokens["alice"]})
    assert "gf_session" in student.cookies  # students sign in to see their own submissions
    refused = student.get(url)
    assert refused.status_code == 403 and "Course staff only" in refused.text


@pytest.mark.parametrize(
    ("body", "headers", "status", "words"),
    [
        (b"", {"content-type": "text/plain"}, 422, "empty"),
        (b"\x00\x01\x02\xff" * 50, {"content-type": "application/octet-stream"}, 422, "binary"),
        (b'{"answers": {"B1": "64"', {"content-type": "application/json"}, 422, "json"),
        (b"x" * (64 * 1024 + 1), {"content-type": "text/plain"}, 413, "limit"),
    ],
)
def test_garbage_is_rejected_and_nothing_is_stored(
    api: Api, body: bytes, headers: dict[str, str], status: int, words: str
) -> None:
    before = _count(api)
    response = api.client.post(UPLOAD, content=body, headers={**headers, **api.auth("alice")})
    problem = _problem(response, status)
    assert words in problem["detail"].lower()
    assert _count(api) == before


def test_multipart_garbage_and_wrong_requests(api: Api) -> None:
    before = _count(api)
    files = {"file": ("x.bin", b"\x7fELF\x00\x00" * 40, "application/octet-stream")}
    _problem(api.client.post(UPLOAD, files=files, headers=api.auth("alice")), 422)
    big = {"file": ("big.txt", b"a" * (64 * 1024 + 10), "text/plain")}
    _problem(api.client.post(UPLOAD, files=big, headers=api.auth("alice")), 413)
    no_file = api.client.post(
        UPLOAD, data={"student": "x"}, files={"other": ("a.txt", b"hi")}, headers=api.auth("alice")
    )
    assert "file" in _problem(no_file, 422)["detail"]
    unknown = api.client.post(
        "/api/v1/assignments/nope/submissions", json={"answers": {}}, headers=api.auth("alice")
    )
    assert "nope" in _problem(unknown, 404)["detail"]
    assert _count(api) == before
    _problem(api.client.get("/api/v1/nothing-here"), 404)
    _problem(api.client.delete("/healthz"), 405)
    bad_param = api.client.get("/api/v1/submissions/abc", headers=api.auth("prof"))
    assert _problem(bad_param, 422)["errors"]
    _problem(api.client.get("/api/v1/submissions/999999", headers=api.auth("prof")), 404)


def _numeric_ready() -> None:
    if get_grader("numeric") is None:
        pytest.skip("the numeric grader (graders/numeric) is not built yet")


def _items(api: Api, answers: dict[str, str]) -> dict[str, dict[str, Any]]:
    response = api.client.post(
        f"{UPLOAD}?wait=true&student=s1",
        json={"student_id": "someone-else", "answers": answers},
        headers=api.auth("prof"),
    )
    assert response.status_code == 201, response.text
    body = api.client.get(
        f"/api/v1/submissions/{response.json()['id']}", headers=api.auth("prof")
    ).json()
    # An instructor's upload is filed under the explicit student, never the document's claim.
    assert body["student"] == "s1"
    return {i["id"]: i for i in body["items"]}


def test_json_with_every_part_b_value_right_scores_full_marks(api: Api) -> None:
    _numeric_ready()
    items = _items(
        api,
        {
            "b1.d_head": "64",
            "b1.per_matrix": "589824",
            "b1.total": "1769472",
            "b2.normalizer": "11.107",
            "b2.values": "[0.665, 0.245, 0.090]",
        },
    )
    for item_id in ("b1.d_head", "b1.per_matrix", "b1.total", "b2.normalizer", "b2.values"):
        assert items[item_id]["points"] == items[item_id]["max_points"], items[item_id]
        assert items[item_id]["status"] == "graded"


def test_json_with_the_known_mistakes_gets_partial_points_and_feedback(api: Api) -> None:
    _numeric_ready()
    items = _items(
        api,
        {
            "b1.d_head": "64",
            "b1.per_matrix": "49152",
            "b1.total": "2359296",
            "b2.normalizer": "11.107",
            "b2.values": "[0.665, 0.245, 0.090]",
        },
    )
    assert items["b1.per_matrix"]["points"] == 1
    assert "head" in items["b1.per_matrix"]["feedback"].lower()
    assert items["b1.total"]["points"] == 1
    assert "W_O" in items["b1.total"]["feedback"]
    assert items["b1.d_head"]["points"] == 4


def test_admins_manage_tokens(api: Api) -> None:
    _problem(
        api.client.post(
            "/api/v1/tokens", json={"name": "x", "role": "student"}, headers=api.auth("prof")
        ),
        403,
    )
    created = api.client.post(
        "/api/v1/tokens", json={"name": "carol", "role": "student"}, headers=api.auth("root")
    )
    assert created.status_code == 201
    secret = created.json()["token"]
    assert api.client.get(UPLOAD, headers={"Authorization": f"Bearer {secret}"}).status_code == 200
    listed = api.client.get("/api/v1/tokens", headers=api.auth("root")).json()
    assert "token" not in listed[0] and "carol" in [t["name"] for t in listed]
    _problem(
        api.client.post(
            "/api/v1/tokens", json={"name": "carol", "role": "admin"}, headers=api.auth("root")
        ),
        409,
    )
    revoked = api.client.delete(f"/api/v1/tokens/{created.json()['id']}", headers=api.auth("root"))
    assert revoked.json()["revoked_at"] is not None
    _problem(api.client.get(UPLOAD, headers={"Authorization": f"Bearer {secret}"}), 401)


def test_staff_file_uploads_under_a_student_and_students_cannot(api: Api) -> None:
    files = {"file": ("x.json", b'{"answers": {"B1": "64"}}', "application/json")}
    by_prof = api.client.post(
        UPLOAD, files=files, data={"student": " zoe "}, headers=api.auth("prof")
    )
    by_alice = api.client.post(f"{UPLOAD}?student=zoe", files=files, headers=api.auth("alice"))
    assert by_prof.status_code == by_alice.status_code == 202
    assert _wait_final(api, by_prof.json()["id"], "prof")["student"] == "zoe"
    assert _wait_final(api, by_alice.json()["id"], "alice")["student"] == "alice"
