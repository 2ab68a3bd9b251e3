"""The settings page over HTTP: publishing warns about answers still in review (per item, with
links) and needs a confirmation then; withdrawing; the schedule form with its refusals in words;
the release badges; CSRF on every form. And what a student reads after a human decision."""

from __future__ import annotations

import re

from fastapi.testclient import TestClient

from tests.app.conftest import Api
from tests.support.pages import csrf_of

SLUG = "transformer-basics"
UPLOAD = f"/api/v1/assignments/{SLUG}/submissions"
SETTINGS = f"/assignments/{SLUG}/settings"
# Two readings of d_head: the numeric grader asks a human (needs_review on b1.d_head).
AMBIGUOUS = {"B1": "d_head = 12 maybe 64"}
REVIEW_PROMISE = re.compile(r"grader will check", re.IGNORECASE)


def _upload(api: Api, student: str, answers: dict[str, str]) -> int:
    response = api.client.post(f"{UPLOAD}?wait=true&student={student}",
                               json={"answers": answers}, headers=api.auth("prof"))
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _browser(api: Api, who: str) -> TestClient:
    client = TestClient(api.client.app)
    signed = client.post("/sign-in", data={"token": api.tokens[who], "next": "/"},
                         follow_redirects=False)
    assert signed.status_code == 303
    return client



def _published(api: Api) -> bool:
    body = api.client.get(f"/api/v1/assignments/{SLUG}", headers=api.auth("prof")).json()
    return body["schedule"]["grades_published_at"] is not None


def _item(api: Api, sid: int, item_id: str, who: str) -> dict[str, object]:
    body = api.client.get(f"/api/v1/submissions/{sid}", headers=api.auth(who)).json()
    return next(i for i in body["items"] if i["id"] == item_id)


def test_publishing_warns_about_answers_in_review_and_withdraws(api: Api) -> None:
    sid = _upload(api, "bob", AMBIGUOUS)
    assert _item(api, sid, "b1.d_head", "prof")["status"] == "needs_review"
    prof = _browser(api, "prof")
    home = prof.get("/").text
    assert "grades not published" in home and f'href="{SETTINGS}"' in home
    page = prof.get(SETTINGS)
    assert page.status_code == 200 and 'id="publish-warning"' in page.text
    warning = page.text.split('id="publish-warning"')[1].split("</div>")[0]
    assert f"/assignments/{SLUG}/review?item_id=b1.d_head" in warning
    assert re.search(r"<td[^>]*>b1\.d_head</td>|>b1\.d_head</a></td><td[^>]*>B1</td>"
                     r"<td[^>]*>\d+</td>",
                     warning)
    token = csrf_of(page.text)
    refused = prof.post(f"{SETTINGS}/publish", data={"csrf": "0" * 64})
    assert refused.status_code == 403 and "CSRF" in refused.text and not _published(api)
    unconfirmed = prof.post(f"{SETTINGS}/publish", data={"csrf": token})
    assert unconfirmed.status_code == 409 and not _published(api)
    assert "Not published" in unconfirmed.text and "still in review" in unconfirmed.text
    done = prof.post(f"{SETTINGS}/publish", data={"csrf": token, "confirm": "yes"},
                     follow_redirects=False)
    assert done.status_code == 303 and _published(api)
    after = prof.get(done.headers["location"]).text
    assert "Grades published." in after and 'id="withdraw"' in after
    assert "grades published" in prof.get("/").text
    dashboard = prof.get(f"/assignments/{SLUG}/dashboard").text
    assert '<p id="release"><a href="/assignments/transformer-basics/settings">' in dashboard
    assert "grades published" in dashboard.split('id="release"')[1].split("</p>")[0]
    withdrawn = prof.post(f"{SETTINGS}/withdraw", data={"csrf": token})
    assert withdrawn.status_code == 200 and "Grades withdrawn." in withdrawn.text
    assert not _published(api)


def test_the_publish_api_names_what_is_still_in_review(api: Api) -> None:
    _upload(api, "erin", AMBIGUOUS)
    url = f"/api/v1/assignments/{SLUG}/publish"
    published = api.client.post(url, headers=api.auth("prof"))
    assert published.status_code == 200 and published.json()["grades_published_at"]
    waiting = {w["item_id"]: w for w in published.json()["still_in_review"]}
    assert waiting["b1.d_head"]["waiting"] >= 1 and waiting["b1.d_head"]["question"] == "B1"
    assert api.client.delete(url, headers=api.auth("prof")).status_code == 200


def test_students_cannot_open_or_post_the_settings(api: Api) -> None:
    student = _browser(api, "alice")
    assert student.get(SETTINGS).status_code == 403
    posted = student.post(f"{SETTINGS}/publish", data={"csrf": "x", "confirm": "yes"})
    assert posted.status_code == 403 and not _published(api)


def test_the_schedule_form_saves_and_refuses_in_words(api: Api) -> None:
    prof = _browser(api, "prof")
    token = csrf_of(prof.get(SETTINGS).text)
    form = {"csrf": token, "opens_at": "2026-01-10T09:00", "due_at": "2026-01-20T23:59",
            "late_until": "2026-01-22T23:59", "late_penalty_percent": "10",
            "max_submissions": "3", "counts": "best"}
    saved = prof.post(f"{SETTINGS}/schedule", data=form)
    assert saved.status_code == 200 and "Schedule saved." in saved.text
    assert 'value="2026-01-20T23:59"' in saved.text and "past due" in saved.text
    assert 'name="late_penalty_percent" id="late_penalty_percent" value="10"' in saved.text
    schedule = api.client.get(f"/api/v1/assignments/{SLUG}",
                              headers=api.auth("prof")).json()["schedule"]
    assert schedule["due_at"].startswith("2026-01-20T23:59") and schedule["max_submissions"] == 3
    assert schedule["counts"] == "best" and float(schedule["late_penalty_percent"]) == 10
    for bad, words in [
        ({"due_at": "2026-01-05T00:00"}, "must not be after"),
        ({"late_penalty_percent": "lots"}, "not a number"),
        ({"late_penalty_percent": "150"}, "between 0 and 100"),
        ({"max_submissions": "-2"}, "whole number"),
        ({"opens_at": "tomorrow"}, "not a date and time"),
        ({"counts": "worst"}, "is not one of"),
    ]:
        refused = prof.post(f"{SETTINGS}/schedule", data={**form, **bad})
        assert refused.status_code == 422 and "Not saved" in refused.text, bad
        assert words in refused.text, (bad, refused.text[-600:])
    cleared = prof.post(f"{SETTINGS}/schedule", data={
        "csrf": token, "late_penalty_percent": "0", "counts": "latest"})
    assert cleared.status_code == 200 and "Schedule saved." in cleared.text
    after = api.client.get(f"/api/v1/assignments/{SLUG}",
                           headers=api.auth("prof")).json()["schedule"]
    assert after["due_at"] is None and after["max_submissions"] is None
    assert prof.post(f"{SETTINGS}/schedule", data={**form, "csrf": ""}).status_code == 403


def test_students_read_the_final_decision_not_the_machines_promise(api: Api) -> None:
    """An item overridden to full points without a comment, an item accepted as a group, and an
    item overridden with a comment: staff's preview, the student's API and page agree."""
    overridden = _upload(api, "alice", AMBIGUOUS)
    commented = _upload(api, "carol", AMBIGUOUS)
    machine = _item(api, overridden, "b1.d_head", "prof")
    assert REVIEW_PROMISE.search(str(machine["student_feedback"]))
    url = f"/api/v1/submissions/{overridden}/items/b1.d_head/override"
    assert api.client.put(url, json={"points": 4}, headers=api.auth("prof")).status_code == 200
    staff_view = _item(api, overridden, "b1.d_head", "prof")
    assert staff_view["student_feedback"] == "Full credit."
    url = f"/api/v1/submissions/{commented}/items/b1.d_head/override"
    assert api.client.put(url, json={"points": 2, "comment": "You gave two values."},
                          headers=api.auth("prof")).status_code == 200
    assert _item(api, commented, "b1.d_head", "prof")["student_feedback"] == \
        "You gave two values."
    groups = api.client.get(f"/api/v1/assignments/{SLUG}/items/b1.d_head/groups",
                            headers=api.auth("prof")).json()["groups"]
    for group in groups:
        members = [m for m in group["members"] if not m["decided"]]
        if members:
            decided = api.client.post(
                f"/api/v1/assignments/{SLUG}/items/b1.d_head/groups/{group['id']}/decision",
                json={"accept": True}, headers=api.auth("prof"))
            assert decided.status_code == 200, decided.text
    accepted = _upload(api, "dave", {"B1": "d_head = 64"})  # a confident grade, for contrast
    for sid in [overridden, commented, accepted]:
        text = str(_item(api, sid, "b1.d_head", "prof")["student_feedback"])
        assert "Group decision" not in text and not REVIEW_PROMISE.search(text), (sid, text)
    prof = _browser(api, "prof")
    token = csrf_of(prof.get(SETTINGS).text)
    assert prof.post(f"{SETTINGS}/publish", data={"csrf": token, "confirm": "yes"}).status_code \
        == 200
    try:
        mine = _item(api, overridden, "b1.d_head", "alice")
        assert mine["feedback"] == "Full credit." and mine["points"] == 4
        home = _browser(api, "alice").get("/").text
        assert "needs_review" not in home and "Your latest upload counts." in home
        assert '<span class="badge">counts</span>' in home
    finally:
        prof.post(f"{SETTINGS}/withdraw", data={"csrf": token})
    unpublished = _browser(api, "alice").get("/").text
    assert "Grades are not published yet." in unpublished
