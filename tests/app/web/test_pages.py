"""The web app's pages over HTTP: sign-in, staff-only pages, CSRF on every form, student text
shown as text, students limited to their own submissions and student feedback."""

from __future__ import annotations

import csv
import html
import io
import re
from decimal import Decimal

from fastapi.testclient import TestClient
from hypothesis import given
from hypothesis import strategies as st

from app.web.evidence import spans
from app.web.markup import highlight
from tests.app.conftest import Api
from tests.support.pages import csrf_of

SLUG = "transformer-basics"
UPLOAD = f"/api/v1/assignments/{SLUG}/submissions"
HOSTILE = '<script>alert("x")</script><img src=x onerror=alert(1)>'
# Two readings of d_head: the numeric grader asks a human (needs_review on b1.d_head).
AMBIGUOUS = {"B1": f"d_head = 12 maybe 64 {HOSTILE}"}
STAFF_PAGES = ["dashboard", "review", "submissions", "regrade", "exports"]


def _upload(api: Api, who: str, answers: dict[str, str]) -> int:
    response = api.client.post(f"{UPLOAD}?wait=true", json={"answers": answers},
                               headers=api.auth(who))
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _browser(api: Api, who: str) -> TestClient:
    client = TestClient(api.client.app)
    signed = client.post("/sign-in", data={"token": api.tokens[who], "next": "/"},
                         follow_redirects=False)
    assert signed.status_code == 303 and "gf_session" in client.cookies
    return client



def test_pages_ask_for_the_token_and_serve_their_own_assets(api: Api) -> None:
    anonymous = TestClient(api.client.app)
    for path in ["/", "/assignments", f"/assignments/{SLUG}/review", "/submissions/1"]:
        page = anonymous.get(path)
        assert page.status_code == 200 and 'name="token"' in page.text, path
    css, js = anonymous.get("/static/web.css"), anonymous.get("/static/web.js")
    assert css.headers["content-type"].startswith("text/css") and "mark" in css.text
    assert "requestSubmit" in js.text
    assert anonymous.get("/static/other.js").status_code == 404
    posted = anonymous.post(f"/assignments/{SLUG}/review/decide", data={
        "submission_id": "1", "item_id": "b1.d_head", "action": "accept"})
    assert 'name="token"' in posted.text  # asked to sign in; nothing stored


def test_staff_pages_show_student_text_as_text(api: Api) -> None:
    sid = _upload(api, "bob", AMBIGUOUS)
    prof = _browser(api, "prof")
    home = prof.get("/")
    assert home.status_code == 200 and f"/assignments/{SLUG}/review" in home.text
    policy = home.headers["content-security-policy"]
    nonce = policy.split("'nonce-")[1].split("'")[0]
    assert f'<script nonce="{nonce}" src="/static/web.js"></script>' in home.text
    assert "style-src 'self'" in policy
    for page in [prof.get(f"/assignments/{SLUG}/review"), prof.get(f"/submissions/{sid}")]:
        assert page.status_code == 200
        assert html.escape(HOSTILE) in page.text
        assert "<script>alert" not in page.text and "<img src=x" not in page.text
        assert page.text.count("<script") == 1  # only the bundled script
    review = prof.get(f"/assignments/{SLUG}/review").text
    assert f"/assignments/{SLUG}/groups/b1.d_head" in review
    assert "<mark" in review  # the evidence is marked in the answer
    assert "<kbd>a</kbd>" in review  # the shortcuts are documented
    hostile_name = '"><svg onload=alert(1)>'
    filed = api.client.post(UPLOAD, params={"wait": "true", "student": hostile_name},
                            json={"answers": AMBIGUOUS}, headers=api.auth("prof"))
    assert filed.status_code == 201, filed.text
    listing = prof.get(f"/assignments/{SLUG}/submissions").text
    assert html.escape(hostile_name) in listing and "<svg" not in listing
    one_item = prof.get(f"/assignments/{SLUG}/review", params={"item_id": "b1.d_head"}).text
    assert "Only item <b>b1.d_head</b>" in one_item and "item_id=b1.d_head" in one_item
    none = prof.get(f"/assignments/{SLUG}/review", params={"item_id": "a1.nonseparable"}).text
    assert "Nothing is waiting for review" in none


def test_forms_need_the_session_csrf_token(api: Api) -> None:
    sid = _upload(api, "bob", AMBIGUOUS)
    prof = _browser(api, "prof")
    page = prof.get(f"/assignments/{SLUG}/review").text
    token = csrf_of(page)
    form = {"submission_id": str(sid), "item_id": "b1.d_head", "action": "points",
            "points": "2", "comment": "two readings"}
    url = f"/assignments/{SLUG}/review/decide"
    for bad in [{}, {"csrf": "0" * 64}]:
        refused = prof.post(url, data={**form, **bad}, follow_redirects=False)
        assert refused.status_code == 403 and "CSRF" in refused.text
    item = _item(api, sid)
    assert item["override"] is None
    # Another session's token is no good either.
    other = _browser(api, "root")
    assert other.post(url, data={**form, "csrf": token}).status_code == 403
    done = prof.post(url, data={**form, "csrf": token}, follow_redirects=False)
    assert done.status_code == 303 and "saved=" in done.headers["location"]
    item = _item(api, sid)
    assert item["override"]["points"] == 2 and item["override"]["comment"] == "two readings"
    shown = prof.get(f"/submissions/{sid}").text
    assert "two readings" in shown and "override.set" in shown
    regrade = prof.post(f"/assignments/{SLUG}/regrade/dry-run", data={})
    assert regrade.status_code == 403


def test_an_override_is_removed_from_the_submission_page(api: Api) -> None:
    sid = _upload(api, "bob", AMBIGUOUS)
    put = api.client.put(f"/api/v1/submissions/{sid}/items/b1.d_head/override",
                         json={"points": 3, "comment": "kept 64"}, headers=api.auth("prof"))
    assert put.status_code == 200, put.text
    prof = _browser(api, "prof")
    page = prof.get(f"/submissions/{sid}").text
    action = f'action="/submissions/{sid}/override/remove"'
    assert page.count(action) == 1 and 'name="item_id" value="b1.d_head"' in page
    token = csrf_of(page)
    url = f"/submissions/{sid}/override/remove"
    form = {"item_id": "b1.d_head", "csrf": token}
    # Without this session's token, or from a student's session: refused, nothing removed.
    for bad in [{"csrf": ""}, {"csrf": "0" * 64}, {"csrf": csrf_of(_browser(api, "root").get(
            "/").text)}]:
        refused = prof.post(url, data={**form, **bad}, follow_redirects=False)
        assert refused.status_code == 403 and "CSRF" in refused.text
    bob = _browser(api, "bob")
    assert bob.post(url, data={**form, "csrf": csrf_of(bob.get("/").text)}).status_code == 403
    assert _item(api, sid)["override"] is not None
    done = prof.post(url, data=form, follow_redirects=False)
    assert done.status_code == 303 and done.headers["location"].endswith("?removed=b1.d_head")
    item = _item(api, sid)
    assert item["override"] is None and item["points"] == item["machine_points"]
    shown = prof.get(done.headers["location"]).text
    assert 'id="removed"' in shown and action not in shown
    assert "override.delete" in shown  # the audit log on the page
    again = prof.post(url, data=form, follow_redirects=False)
    assert again.status_code == 404 and "has no override" in again.text
    # The notice only speaks of an item that really has no override.
    assert 'id="removed"' not in prof.get(f"/submissions/{sid}?removed=zz.nope").text


def test_a_text_document_is_shown_whole_with_the_evidence_marked(api: Api) -> None:
    text = f"# Homework\n\nNotes {HOSTILE}\n\nB1: d_head = 12 maybe 64\n"
    response = api.client.post(
        UPLOAD, params={"wait": "true", "student": "dana"},
        files={"file": ("dana.md", text.encode(), "text/markdown")}, headers=api.auth("prof"))
    assert response.status_code == 201, response.text
    sid = response.json()["id"]
    prof = _browser(api, "prof")
    page = prof.get(f"/submissions/{sid}").text
    document = page.split('id="document">', 1)[1].split("</div>", 1)[0]
    assert html.escape(HOSTILE) in document and "<script" not in document
    assert re.search(r"<mark title=\"[^\"]*\">(12|64)</mark>", document)


def _item(api: Api, sid: int) -> dict[str, object]:
    body = api.client.get(f"/api/v1/submissions/{sid}", headers=api.auth("prof")).json()
    return next(i for i in body["items"] if i["id"] == "b1.d_head")


def test_out_of_range_points_are_refused_on_a_page(api: Api) -> None:
    sid = _upload(api, "bob", AMBIGUOUS)
    prof = _browser(api, "prof")
    token = csrf_of(prof.get(f"/assignments/{SLUG}/review").text)
    refused = prof.post(f"/assignments/{SLUG}/review/decide", data={
        "submission_id": str(sid), "item_id": "b1.d_head", "action": "points",
        "points": "1000", "csrf": token})
    assert refused.status_code == 422 and "text/html" in refused.headers["content-type"]
    assert "between 0 and" in refused.text


def test_students_see_their_own_submissions_and_no_staff_pages(api: Api) -> None:
    bob_sid = _upload(api, "bob", AMBIGUOUS)
    alice_sid = _upload(api, "alice", {"B1": "d_head = 64"})
    alice = _browser(api, "alice")
    home = alice.get("/")
    assert f"/submissions/{alice_sid}" in home.text and f"/submissions/{bob_sid}" not in home.text
    own = alice.get(f"/submissions/{alice_sid}")
    assert own.status_code == 200
    staff_feedback = api.client.get(f"/api/v1/submissions/{alice_sid}",
                                    headers=api.auth("prof")).json()["items"][0]["feedback"]
    assert staff_feedback and html.escape(staff_feedback) not in own.text
    assert "confidence" not in own.text and "evidence" not in own.text
    assert alice.get(f"/submissions/{bob_sid}").status_code == 404
    for page in STAFF_PAGES:
        refused = alice.get(f"/assignments/{SLUG}/{page}")
        assert refused.status_code == 403 and "Course staff only" in refused.text, page
    token = csrf_of(home.text)
    decide = alice.post(f"/assignments/{SLUG}/review/decide", data={
        "submission_id": str(alice_sid), "item_id": "b1.d_head", "action": "points",
        "points": "4", "csrf": token})
    assert decide.status_code == 403
    assert alice.post(f"/assignments/{SLUG}/regrade/apply", data={"csrf": token}).status_code \
        == 403
    # The export links work with the session for staff; a student's session is refused.
    assert alice.get(f"/api/v1/assignments/{SLUG}/export.csv").status_code == 403
    assert _browser(api, "prof").get(f"/api/v1/assignments/{SLUG}/export.csv").status_code == 200
    alice.post("/sign-out")
    assert 'name="token"' in alice.get("/").text


def test_the_cookie_never_authorises_an_api_write(api: Api) -> None:
    prof = _browser(api, "prof")
    sid = _upload(api, "bob", AMBIGUOUS)
    put = prof.put(f"/api/v1/submissions/{sid}/items/b1.d_head/override", json={"points": 1})
    assert put.status_code == 401


def test_dashboard_counts_one_submission_per_student_like_the_gradebook(api: Api) -> None:
    # carol's first upload is replaced by a better one: the gradebook counts only the latest.
    api.client.post(f"{UPLOAD}?wait=true&student=dan", json={"answers": {"B1": "d_head = 12"}},
                    headers=api.auth("prof"))
    for answers in ({"B1": "d_head = 1"}, {"B1": "d_head = 64", "B2": "Sum = 11.107"}):
        api.client.post(f"{UPLOAD}?wait=true&student=carol", json={"answers": answers},
                        headers=api.auth("prof"))
    dashboard = api.client.get(f"/api/v1/assignments/{SLUG}/dashboard",
                               headers=api.auth("prof")).json()
    rows = list(csv.DictReader(io.StringIO(api.client.get(
        f"/api/v1/assignments/{SLUG}/export.csv", headers=api.auth("prof")).text)))
    totals = [Decimal(r["total"]) for r in rows if r["total"]]
    assert dashboard["submissions"] == len(rows) < dashboard["uploads"]
    assert dashboard["scored"] == len(totals)
    mean = (sum(totals, Decimal(0)) / len(totals)).quantize(Decimal("0.01"))
    assert Decimal(str(dashboard["mean"])) == mean


def test_regrade_dry_run_then_apply_from_pages(api: Api) -> None:
    _upload(api, "bob", AMBIGUOUS)
    prof = _browser(api, "prof")
    token = csrf_of(prof.get(f"/assignments/{SLUG}/regrade").text)
    diff = prof.post(f"/assignments/{SLUG}/regrade/dry-run", data={"csrf": token})
    assert diff.status_code == 200 and 'id="diff-summary"' in diff.text
    assert f'action="/assignments/{SLUG}/regrade/apply"' in diff.text
    started = prof.post(f"/assignments/{SLUG}/regrade/apply", data={"csrf": token},
                        follow_redirects=False)
    assert started.status_code == 303
    job = prof.get(started.headers["location"])
    assert job.status_code == 200 and 'id="job-status"' in job.text
    assert prof.get("/regrades/999999").status_code == 404


@given(st.text(max_size=200), st.lists(
    st.tuples(st.integers(-5, 210), st.integers(-5, 210), st.text(max_size=20)), max_size=8))
def test_highlighting_changes_no_text(text: str, marks: list[tuple[int, int, str]]) -> None:
    out = highlight(text, marks)
    assert re.sub(r'<mark title="[^"<>]*">|</mark>', "", out) == html.escape(text)


def test_evidence_spans_shift_by_the_answer_start() -> None:
    answer = "d_head = 12, no: 64"
    evidence = [
        {"kind": "answer", "text": answer, "start": 100, "end": 119},
        {"kind": "value", "text": "64", "start": 117, "end": 119, "note": "read as 64"},
        {"kind": "value", "text": "12", "start": None, "end": None, "note": "rival"},
        {"kind": "value", "text": "99", "start": 5, "end": 7},  # not in the answer
    ]
    assert sorted(spans(answer, evidence)) == [(9, 11, "value: rival"),
                                               (17, 19, "value: read as 64")]


_EVIDENCE = st.fixed_dictionaries({
    "kind": st.sampled_from(["answer", "value", "expression", "sentence", "stdout"]),
    "text": st.text(max_size=30),
    "start": st.one_of(st.none(), st.integers(-10, 300)),
    "end": st.one_of(st.none(), st.integers(-10, 300)),
})


@given(st.text(max_size=200), st.lists(_EVIDENCE, max_size=8))
def test_evidence_spans_lie_inside_the_answer_and_quote_it(
    answer: str, evidence: list[dict[str, object]]
) -> None:
    for start, end, _ in spans(answer, evidence):
        assert 0 <= start < end <= len(answer)
        assert any(answer[start:end] == str(ev["text"])[: end - start] for ev in evidence)


def test_an_error_page_keeps_the_signed_in_navigation(api: Api) -> None:
    """A domain error (an assignment that does not exist) is a page with the viewer's own
    navigation: their name and the Sign out button, as on every other page; staff pages link
    the regrade requests."""
    prof = _browser(api, "prof")
    missing = prof.get("/assignments/no-such-assignment/review")
    assert missing.status_code == 404
    assert "Sign out" in missing.text and "(staff)" in missing.text
    dashboard = prof.get(f"/assignments/{SLUG}/dashboard")
    assert f'href="/assignments/{SLUG}/regrade-requests"' in dashboard.text
    anonymous = TestClient(api.client.app)
    assert "Sign out" not in anonymous.get("/assignments/no-such-assignment/review").text
