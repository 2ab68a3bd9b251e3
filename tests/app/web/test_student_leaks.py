"""Leaks through the pages a student uses (issue #31): the start page, the submit page and its
result (what the page polls while grading), the answer to an upload sent by the page's script,
their submission page with its regrade-request thread, the API's regrade requests, their
results.json. None of them ever holds another student's data (answers, file name, requests,
submission ids), the answer key before release, or staff-only text (the machine's own
feedback, "(Machine feedback: ...)", confidence, who decided). The staff-only batch poll
refuses a student."""

from __future__ import annotations

import html
import re
import time
from typing import Any

from fastapi.testclient import TestClient

from tests.app.assignments.test_release import answer_key, leaks
from tests.app.conftest import Api
from tests.support.pages import csrf_of

SLUG = "transformer-basics"
ITEM = "b1.d_head"
# Bob's: every string that would show his data on a page of alice's.
BOB_ANSWER = "zebraquartz 64 since d_model is split over twelve heads"
BOB_FILE = "bob-homework-zebra.md"
BOB_ASKS = "Bob's plea: my zebraquartz working deserves more."
BOB_REPLIED = "Answer for bob only: kept."
ALICE_DOC = b"# Homework\n\n## B1\nd_head = 12 maybe 96\n"
# Alice's override comment (shown once released).
STAFF_COMMENT = "Two values; the second was meant."
STAFF_WORDS = re.compile(r"\bprof\b|Machine feedback|confidence|machine_points|grader_version")


def _browser(api: Api, who: str) -> TestClient:
    client = TestClient(api.client.app)  # type: ignore[arg-type]
    signed = client.post(
        "/sign-in", data={"token": api.tokens[who], "next": "/"}, follow_redirects=False
    )
    assert signed.status_code == 303
    return client



def _graded(api: Api, sid: int) -> dict[str, Any]:
    for _ in range(600):
        got = api.client.get(f"/api/v1/submissions/{sid}", headers=api.auth("prof")).json()
        if got["status"] not in ("queued", "grading"):
            return dict(got)
        time.sleep(0.1)
    raise AssertionError("not graded in 60 s")


def _ok(response: Any) -> Any:
    assert response.status_code in (200, 201), response.text
    return response.json()


def _override(api: Api, sid: int, body: dict[str, Any]) -> None:
    _ok(
        api.client.put(
            f"/api/v1/submissions/{sid}/items/{ITEM}/override", json=body, headers=api.auth("prof")
        )
    )


def _student_texts(api: Api, alice: TestClient, sid: int) -> dict[str, str]:
    """Everything alice's pages and API calls show her, by where it came from (HTML unescaped,
    so that a quote reads as it does on screen)."""
    paths = [
        "/",
        f"/assignments/{SLUG}/submit",
        f"/assignments/{SLUG}/submit?submission={sid}",
        f"/submissions/{sid}",
        f"/api/v1/submissions/{sid}",
        f"/api/v1/submissions/{sid}/results.json",
        f"/api/v1/assignments/{SLUG}/submissions",
        f"/api/v1/submissions/{sid}/regrade-requests",
    ]
    found = {}
    for path in paths:
        response = alice.get(path, headers=api.auth("alice") if path.startswith("/api") else {})
        assert response.status_code == 200, (path, response.text)
        found[path] = html.unescape(response.text)
    return found


def _staff_only(api: Api, sid: int, mine: dict[str, Any]) -> set[str]:
    """The machine's own words for alice's items wherever they differ from what she reads."""
    staff = _ok(api.client.get(f"/api/v1/submissions/{sid}", headers=api.auth("prof")))
    # the same items in the same order (a student reads an unreleased item's place, not its id)
    return {
        i["feedback"]
        for i, hers in zip(staff["items"], mine["items"], strict=True)
        if len(i["feedback"]) > 20 and i["feedback"] != hers["feedback"]
    }


UPLOAD_LIMIT = re.compile(r'data-max-(?:bytes|words)="[^"]{0,20}"|\(at most [^)<]{0,20}\)')


def _no_leak(
    texts: dict[str, str], bob_sid: int, staff_only: set[str], key: tuple[set[str], set[str]] | None
) -> None:
    for where, text in texts.items():
        for bobs in (BOB_ANSWER, BOB_FILE, BOB_ASKS, BOB_REPLIED, "zebraquartz"):
            assert bobs not in text, (where, bobs)
        assert f'/submissions/{bob_sid}"' not in text and not re.search(r"\bbob\b", text), where
        assert not STAFF_WORDS.search(text), (where, STAFF_WORDS.search(text))
        for words in staff_only:
            assert words not in text, (where, words[:80])
        if not where.startswith("/api") and "(script)" not in where:  # pages speak words
            assert "needs_review" not in text and "grader_error" not in text, where
        if key is not None:
            # The upload form states the server's size limit, here 64 KB: a number that is also
            # an answer (d_head = 64) but says nothing of it.
            text = UPLOAD_LIMIT.sub("", text)
            assert not leaks(text, *key), (where, leaks(text, *key)[:3])


def test_nothing_a_student_sees_leaks(api: Api) -> None:
    key = answer_key(SLUG)
    alice = _browser(api, "alice")
    # Bob's upload, filed by staff under a telling file name, decided by hand.
    bob_sid = _ok(
        api.client.post(
            f"/api/v1/assignments/{SLUG}/submissions",
            params={"wait": "true", "student": "bob"},
            files={"file": (BOB_FILE, f"## B1\nd_head = {BOB_ANSWER}\n".encode(), "text/markdown")},
            headers=api.auth("prof"),
        )
    )["id"]
    # Alice uploads on her page: a plain post, then the page's script (JSON answer).
    page = alice.get(f"/assignments/{SLUG}/submit").text
    sent = alice.post(
        f"/assignments/{SLUG}/submit",
        data={"csrf": csrf_of(page)},
        files={"file": ("homework.md", ALICE_DOC)},
        follow_redirects=False,
    )
    assert sent.status_code == 303, sent.text
    polled = html.unescape(alice.get(sent.headers["location"]).text)  # while it grades
    sid = int(sent.headers["location"].rsplit("=", 1)[1])
    script = alice.post(
        f"/assignments/{SLUG}/submit",
        data={"csrf": csrf_of(page)},
        files={"file": ("again.md", ALICE_DOC)},
        headers={"Accept": "application/json"},
    )
    assert script.status_code in (201, 202), script.text
    for submission in (sid, bob_sid, script.json()["id"]):
        _graded(api, submission)
    # Alice's first upload counts only if it is the latest: decide both.
    later = int(script.json()["id"])
    for submission in (sid, later):
        _override(api, submission, {"points": 3, "comment": STAFF_COMMENT})
    _override(api, bob_sid, {"points": 4, "comment": BOB_REPLIED})
    refused = alice.get(f"/assignments/{SLUG}/batch.json?ids={bob_sid},{sid}")
    assert refused.status_code == 403 and "zebra" not in refused.text
    assert alice.get(f"/assignments/{SLUG}/submit?submission={bob_sid}").status_code == 404

    mine = _ok(api.client.get(f"/api/v1/submissions/{later}", headers=api.auth("alice")))
    staff_only = _staff_only(api, later, mine)
    assert staff_only, "the machine's own words differ from the student's for some item"
    # The check finds what it looks for: the staff page of the same submission holds it.
    staff_page = html.unescape(_browser(api, "prof").get(f"/submissions/{later}").text)
    assert any(words in staff_page for words in staff_only)
    assert STAFF_WORDS.search(staff_page) and leaks(staff_page, *key)
    before = {
        "upload (page, while grading)": polled,
        "upload (script)": script.text,
        **_student_texts(api, alice, later),
    }
    _no_leak(before, bob_sid, staff_only, key)
    assert STAFF_COMMENT not in before[f"/submissions/{later}"]  # not released yet

    # Published: both ask for a regrade; staff answer both.
    _ok(api.client.post(f"/api/v1/assignments/{SLUG}/publish", headers=api.auth("prof")))
    asked = {}
    for who, submission, comment in (
        ("bob", bob_sid, BOB_ASKS),
        ("alice", later, "Please look at my working."),
    ):
        asked[who] = _ok(
            api.client.post(
                f"/api/v1/submissions/{submission}/items/{ITEM}/regrade-requests",
                json={"comment": comment},
                headers=api.auth(who),
            )
        )["id"]
    for who, reply in (("bob", BOB_REPLIED), ("alice", "Kept: two values were given.")):
        _ok(
            api.client.post(
                f"/api/v1/regrade-requests/{asked[who]}/answer",
                json={"reply": reply},
                headers=api.auth("prof"),
            )
        )
    after = _student_texts(api, alice, later)
    after["request (API)"] = html.unescape(
        alice.get(f"/api/v1/regrade-requests/{asked['alice']}", headers=api.auth("alice")).text
    )
    _no_leak(after, bob_sid, staff_only, None)  # the answer key is released with the grades
    thread = after[f"/submissions/{later}"]
    assert "Kept: two values were given." in thread and STAFF_COMMENT in thread
    assert alice.get(f"/regrade-requests/{asked['bob']}").status_code == 403
    assert (
        api.client.get(
            f"/api/v1/regrade-requests/{asked['bob']}", headers=api.auth("alice")
        ).status_code
        == 404
    )
