"""Review queue, overrides (kept across regrades), exemplars, regrade dry-run, exports."""

from __future__ import annotations

import csv
import io
import time
from typing import Any

from fastapi.testclient import TestClient
from sqlalchemy import func, select

from app.db.models import GradingRun
from app.db.session import unit_of_work
from tests.app.conftest import Api

SLUG = "transformer-basics"
UPLOAD = f"/api/v1/assignments/{SLUG}/submissions"
# A written answer the concept grader is unsure of, plus one numeric answer.
WRITTEN = {
    "A5": "Heads are good because more heads means more parameters, I think.",
    "B1": "d_head = 64",
}


def _submit(api: Api, who: str, answers: dict[str, str]) -> int:
    response = api.client.post(
        f"{UPLOAD}?wait=true", json={"answers": answers}, headers=api.auth(who)
    )
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _get(api: Api, submission_id: int, who: str = "prof") -> dict[str, Any]:
    body: dict[str, Any] = api.client.get(
        f"/api/v1/submissions/{submission_id}", headers=api.auth(who)
    ).json()
    return body


def _runs(api: Api) -> int:
    with unit_of_work(api.sessions) as session:
        return int(session.scalar(select(func.count(GradingRun.id))) or 0)


def test_review_override_regrade_and_exemplars(api: Api) -> None:
    sid = _submit(api, "alice", WRITTEN)
    before = _get(api, sid)
    a5 = next(i for i in before["items"] if i["id"] == "a5.why_heads")
    queue_url = f"/api/v1/assignments/{SLUG}/review"
    assert api.client.get(queue_url, headers=api.auth("alice")).status_code == 403
    queue = api.client.get(queue_url, headers=api.auth("prof")).json()
    in_queue = [e for e in queue if e["submission_id"] == sid]
    if a5["status"] == "needs_review":
        entry = next(e for e in in_queue if e["item_id"] == "a5.why_heads")
        assert "more heads" in entry["answer"] and entry["suggested_points"] == a5["points"]
    assert all(e["item_id"] for e in in_queue)

    override_url = f"/api/v1/submissions/{sid}/items/a5.why_heads/override"
    assert (
        api.client.put(override_url, json={"points": 1}, headers=api.auth("alice")).status_code
        == 403
    )
    too_many = api.client.put(override_url, json={"points": 5.5}, headers=api.auth("prof"))
    assert too_many.status_code == 422 and "between 0 and 5" in too_many.json()["detail"]
    assert (
        api.client.put(override_url, json={"points": -1}, headers=api.auth("prof")).status_code
        == 422
    )
    missing_item = f"/api/v1/submissions/{sid}/items/zz.nope/override"
    assert (
        api.client.put(missing_item, json={"points": 1}, headers=api.auth("prof")).status_code
        == 404
    )
    done = api.client.put(
        override_url,
        json={"points": "1.5", "comment": "Only the parameter count."},
        headers=api.auth("prof"),
    )
    assert done.status_code == 200 and done.json()["points"] == 1.5

    after = _get(api, sid)
    item = next(i for i in after["items"] if i["id"] == "a5.why_heads")
    assert item["points"] == 1.5 and item["override"]["comment"] == "Only the parameter count."
    assert item["status"] == "graded" and item["machine_points"] == a5["points"]
    # The student sees neither the override nor, before the grades are published, the points.
    # (unreleased, the item is named by its place in its question: matched by position)
    place = next(n for n, i in enumerate(after["items"]) if i["id"] == "a5.why_heads")
    mine = _get(api, sid, "alice")["items"][place]
    assert mine["id"] == "A5 part 1"
    assert mine["points"] is None and "override" not in mine and "machine_points" not in mine
    expected_total = (
        before["total"] - a5["points"] + 1.5
        if a5["status"] not in ("pending", "grader_error")
        else before["total"] + 1.5
    )
    assert after["total"] == expected_total
    queue = api.client.get(queue_url, headers=api.auth("prof")).json()
    assert not [e for e in queue if e["submission_id"] == sid and e["item_id"] == "a5.why_heads"]

    exemplars = api.client.get(
        f"/api/v1/assignments/{SLUG}/exemplars", headers=api.auth("prof")
    ).json()
    assert {"item_id": "a5.why_heads", "text": WRITTEN["A5"], "points": 1.5} in exemplars

    # A dry run reports changes and stores nothing; the real regrade keeps the override.
    runs = _runs(api)
    dry = api.client.post(
        f"/api/v1/assignments/{SLUG}/regrade?dry_run=true", headers=api.auth("prof")
    )
    assert dry.status_code == 200, dry.text
    assert dry.json()["dry_run"] and dry.json()["regraded"] >= 1 and dry.json()["job_id"] is None
    assert _runs(api) == runs
    assert (
        api.client.post(
            f"/api/v1/assignments/{SLUG}/regrade", headers=api.auth("alice")
        ).status_code
        == 403
    )
    started = api.client.post(f"/api/v1/assignments/{SLUG}/regrade", headers=api.auth("prof"))
    assert started.status_code == 202, started.text
    applied = wait_for_regrade(api, started.json())
    assert applied["status"] == "done" and applied["done"] == applied["total"] >= 1
    assert _runs(api) == runs + applied["done"]
    regraded = _get(api, sid)
    item = next(i for i in regraded["items"] if i["id"] == "a5.why_heads")
    assert item["points"] == 1.5 and item["override"] is not None
    assert regraded["total"] == after["total"]

    assert api.client.delete(override_url, headers=api.auth("prof")).status_code == 204
    assert api.client.delete(override_url, headers=api.auth("prof")).status_code == 404
    assert _get(api, sid)["total"] == before["total"]


def wait_for_regrade(api: Api, job: dict[str, Any], seconds: float = 60) -> dict[str, Any]:
    """Poll a regrade job's status until it is no longer running."""
    deadline = time.monotonic() + seconds
    while job["status"] == "running":
        assert time.monotonic() < deadline, job
        time.sleep(0.05)
        response = api.client.get(job["status_url"], headers=api.auth("prof"))
        assert response.status_code == 200, response.text
        job = response.json()
    return job


def test_exports(api: Api) -> None:
    sid = _submit(api, "bob", {"B1": "d_head = 64"})
    response = api.client.get(f"/api/v1/assignments/{SLUG}/export.csv", headers=api.auth("prof"))
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    header = list(rows[0])
    # The roster's LMS identifiers follow the student (empty here: no roster).
    lms = ["name", "email", "sis_user_id", "sis_login_id", "section"]
    assert header[:8] == ["student", *lms, "submission_id", "status"]
    assert header[8:-6] == ["A1", "A2", "A3", "A4", "A5", "A6", "B1", "B2", "B3", "B4"]
    assert header[-6:] == [
        "total", "max_points", "days_late", "penalty_percent", "final_total", "published"
    ]
    bob = next(r for r in rows if r["student"] == "bob")
    assert int(bob["submission_id"]) == sid and bob["max_points"] == "100.00"
    assert bob["days_late"] == "0" and bob["final_total"] == bob["total"]
    assert bob["published"] == "no"
    assert len({r["student"] for r in rows}) == len(rows)  # one row per student
    assert (
        api.client.get(
            f"/api/v1/assignments/{SLUG}/export.csv", headers=api.auth("bob")
        ).status_code
        == 403
    )

    results = api.client.get(
        f"/api/v1/submissions/{sid}/results.json", headers=api.auth("prof")
    ).json()
    assert results["score"] == _get(api, sid)["total"]
    assert len(results["tests"]) == 33
    assert {"name", "score", "max_score", "output", "status", "visibility"} <= set(
        results["tests"][0]
    )
    assert results["execution_time"] > 0
    # The student's own copy: only what is released before publication, and no score yet.
    own = api.client.get(f"/api/v1/submissions/{sid}/results.json", headers=api.auth("bob"))
    assert own.status_code == 200
    assert [t["name"] for t in own.json()["tests"]] == ["B3 b3.interface", "B4 b4.interface"]
    assert "score" not in own.json()
    assert (
        api.client.get(
            f"/api/v1/submissions/{sid}/results.json", headers=api.auth("alice")
        ).status_code
        == 404
    )


def _mark_unsure(api: Api, ids: list[int]) -> None:
    """Store a current run for each submission whose A5 item the machine was unsure of."""
    from decimal import Decimal

    from app.grading.repository import store_outcomes
    from app.grading.worker import WorkerOutcome
    from graders.results import Evidence, ItemResult, Status

    unsure = ItemResult(
        item_id="a5.why_heads",
        question="A5",
        points=Decimal(2),
        max_points=Decimal(5),
        status=Status.NEEDS_REVIEW,
        feedback="Maybe: parallel heads?",
        confidence=0.4,
        evidence=(Evidence(kind="sentence", text="heads look at different things"),),
        grader="written",
        grader_version="t",
    )
    with unit_of_work(api.sessions) as session:
        runs = session.scalars(select(GradingRun).where(GradingRun.submission_id == ids[0])).all()
        version_id = runs[-1].rubric_version_id
        store_outcomes(
            session,
            [
                (
                    sid,
                    version_id,
                    WorkerOutcome(
                        status="needs_review",
                        rubric_hash="x",
                        items=(unsure,),
                        answers={"A5": f"heads look at different things {sid}"},
                    ),
                )
                for sid in ids
            ],
        )


def test_review_queue_lists_unsure_items_oldest_first(api: Api) -> None:
    # two students: each one's submission is the one that counts
    ids = [_submit(api, who, {"B1": "64"}) for who in ("bob", "alice")]
    _mark_unsure(api, ids)
    queue = api.client.get(f"/api/v1/assignments/{SLUG}/review", headers=api.auth("prof")).json()
    mine = [e for e in queue if e["submission_id"] in ids]
    assert [e["submission_id"] for e in mine] == ids  # oldest first
    assert mine[0]["suggested_points"] == 2 and mine[0]["max_points"] == 5
    assert mine[0]["answer"] == f"heads look at different things {ids[0]}"
    assert mine[0]["evidence"][0]["text"] == "heads look at different things"
    assert _get(api, ids[0])["status"] == "needs_review"
    api.client.put(
        f"/api/v1/submissions/{ids[0]}/items/a5.why_heads/override",
        json={"points": 4},
        headers=api.auth("prof"),
    )
    queue = api.client.get(f"/api/v1/assignments/{SLUG}/review", headers=api.auth("prof")).json()
    assert [e["submission_id"] for e in queue if e["submission_id"] in ids] == ids[1:]
    decided = _get(api, ids[0])
    assert decided["status"] == "graded" and decided["total"] == 4


def test_the_review_queue_holds_only_the_counted_submissions_items(api: Api) -> None:
    """A student uploads twice: the first submission is replaced (the latest counts), so its
    unsure items wait for no one, in the JSON queue and on the review page alike."""
    first = _submit(api, "alice", {"B1": "64"})
    second = _submit(api, "alice", {"B1": "64"})
    _mark_unsure(api, [first, second])
    assert _get(api, first)["status"] == "needs_review"  # unsure, but replaced
    queue = api.client.get(f"/api/v1/assignments/{SLUG}/review?limit=5000",
                           headers=api.auth("prof")).json()
    waiting = {e["submission_id"] for e in queue}
    assert second in waiting and first not in waiting
    page = TestClient(api.client.app)
    page.post("/sign-in", data={"token": api.tokens["prof"], "next": "/"})
    shown = page.get(f"/assignments/{SLUG}/review")
    assert f"of {len(queue)} waiting" in shown.text, shown.text[:2000]
    home = page.get("/").text  # the start page counts by the same rule
    assert f'<a href="/assignments/{SLUG}/review">{len(queue)} waiting</a>' in home, home
    # Instructor-chosen counting: choosing the first brings its items back, not the second's.
    schedule = f"/api/v1/assignments/{SLUG}/schedule"
    assert api.client.patch(schedule, json={"counts": "chosen"},
                            headers=api.auth("prof")).status_code == 200
    try:
        chose = api.client.put(f"/api/v1/submissions/{first}/chosen", headers=api.auth("prof"))
        assert chose.status_code == 200, chose.text
        queue = api.client.get(f"/api/v1/assignments/{SLUG}/review?limit=5000",
                               headers=api.auth("prof")).json()
        waiting = {e["submission_id"] for e in queue}
        assert first in waiting and second not in waiting
    finally:
        api.client.patch(schedule, json={"counts": "latest"}, headers=api.auth("prof"))
