"""The instructor web app in Chromium: assignments, reviewing with the keyboard (the override is
stored and shown on the submission page), a regrade's dry-run diff then the job, exports, and a
student who sees their own work and is refused the staff pages."""

from __future__ import annotations

import re
from typing import Any

import httpx
import pytest

from app.assignments.service import load_rubric_text
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from graders.rubric import BUNDLED_RUBRICS
from tests.browser.conftest import LiveServer, screenshot, sign_in

SLUG = "transformer-basics"
HOSTILE = "<script>alert('x')</script>"
# Two readings of d_head: the numeric grader leaves b1.d_head to a human (needs_review). The
# script is in a code span, which Markdown shows as written (a bare `<script>` element shows
# nothing on the rendered page, so the reader blanks it: graders/documents/markdown_html.py).
AMBIGUOUS = f"d_head = 12 maybe 64 `{HOSTILE}`"
DOCUMENT = (
    "# Homework 1\n\n## A1\nI ran out of time for this one.\n\n"
    f"## B1\n{AMBIGUOUS}\n\n## B2\nSum = 11.107\n"
)


def _upload(server: LiveServer, who: str, answers: dict[str, str] | str, student: str = "") -> int:
    """JSON answers, or (a string) a Markdown document."""
    body: dict[str, Any] = (
        {"json": {"answers": answers}} if isinstance(answers, dict)
        else {"files": {"file": (f"{who}.md", answers.encode(), "text/markdown")}}
    )
    response = httpx.post(
        f"{server.base}/api/v1/assignments/{SLUG}/submissions",
        params={"wait": "true", **({"student": student} if student else {})},
        headers={"Authorization": f"Bearer {server.tokens[who]}"},
        timeout=60,
        **body,
    )
    assert response.status_code == 201, response.text
    return int(response.json()["id"])


def _api(server: LiveServer, path: str) -> Any:
    response = httpx.get(f"{server.base}{path}", timeout=30,
                         headers={"Authorization": f"Bearer {server.tokens['prof']}"})
    assert response.status_code == 200, response.text
    return response.json()


@pytest.fixture(scope="module")
def uploaded(live_server: LiveServer) -> dict[str, int]:
    return {
        "bob": _upload(live_server, "bob", DOCUMENT),
        "carol": _upload(live_server, "prof", {"B1": "d_head = 12, or 64?"}, student="carol"),
        "alice": _upload(live_server, "alice", {"B1": "d_head = 768 / 12 = 64",
                                                "B2": "Sum = 11.107"}),
    }


def test_staff_see_the_assignments_and_the_dashboard(
    page: Any, live_server: LiveServer, uploaded: dict[str, int]
) -> None:
    sign_in(page, live_server, "prof", "/")
    assert page.locator(f"a[href='/assignments/{SLUG}/review']").count() == 1
    screenshot(page, "assignments")
    page.goto(f"/assignments/{SLUG}/dashboard")
    page.wait_for_selector("#histogram svg")
    assert page.locator("#review a[href^='/submissions/']").count() >= 1
    screenshot(page, "dashboard")
    page.goto(f"/assignments/{SLUG}/exports")
    assert page.locator(f"a[href='/api/v1/assignments/{SLUG}/canvas.csv']").count() == 1
    screenshot(page, "exports")
    csv_link = page.locator(f"a[href='/api/v1/assignments/{SLUG}/export.csv']")
    with page.expect_download() as download:
        csv_link.click()
    assert download.value.suggested_filename == f"{SLUG}-grades.csv"
    page.click("nav button[type=submit]")  # sign out
    page.wait_for_selector("input[name=token]")


def test_reviewing_with_the_keyboard_stores_overrides(
    page: Any, live_server: LiveServer, uploaded: dict[str, int]
) -> None:
    # bob's document answers 3 of the 10 questions, so all of it waits for review ("does this
    # answer this assignment?"): the queue is opened on the item this test decides
    sign_in(page, live_server, "prof", f"/assignments/{SLUG}/review?item_id=b1.d_head")
    page.wait_for_selector("#decide-form")
    assert HOSTILE in page.inner_text("#answer")  # shown as text, never run
    assert page.locator("#answer mark").count() >= 1  # the evidence is marked
    screenshot(page, "review-queue")
    first = int(re.findall(r"/submissions/(\d+)", page.inner_html("main"))[0])
    page.keyboard.press("c")
    page.keyboard.type("Both 12 and 64 are given; 64 was meant.")
    page.keyboard.press("Escape")
    page.keyboard.press("3")
    page.wait_for_selector("#saved")
    items = _api(live_server, f"/api/v1/submissions/{first}")["items"]
    decided = next(i for i in items if i["id"] == "b1.d_head")
    assert decided["override"]["points"] == 3
    assert decided["override"]["comment"] == "Both 12 and 64 are given; 64 was meant."
    # The next item: n moves on, a accepts the machine's suggestion.
    assert page.locator("#decide-form").count() == 1  # carol's ambiguous answer waits too
    page.keyboard.press("n")
    page.wait_for_load_state("networkidle")
    second = int(re.findall(r"/submissions/(\d+)", page.inner_html("main"))[-1])
    suggested = page.inner_text("#suggested")
    page.keyboard.press("a")
    page.wait_for_selector("#saved")
    accepted = next(i for i in _api(live_server, f"/api/v1/submissions/{second}")["items"]
                    if i["id"] == "b1.d_head")
    assert accepted["override"]["points"] == float(suggested)
    page.goto(f"/submissions/{first}")
    assert "Both 12 and 64 are given" in page.inner_text("table.items")
    assert "override.set" in page.inner_text("main")
    screenshot(page, "submission")


def test_a_regrade_shows_its_diff_then_runs(
    page: Any, live_server: LiveServer, uploaded: dict[str, int]
) -> None:
    before = _api(live_server, f"/api/v1/submissions/{uploaded['alice']}")["total"]
    # The instructor fixes the rubric: d_head's expected value changes.
    text = (BUNDLED_RUBRICS / f"{SLUG}.yaml").read_text(encoding="utf-8")
    changed = text.replace("expected: 64\n", "expected: 12\n", 1).replace(
        'version: "1"', 'version: "2"', 1)
    assert changed != text
    engine = make_engine(live_server.database_url)
    with unit_of_work(make_sessionmaker(engine)) as session:
        load_rubric_text(session, changed, "browser-test")
    engine.dispose()
    sign_in(page, live_server, "prof", f"/assignments/{SLUG}/regrade")
    screenshot(page, "regrade")
    page.click("#dry-run")
    page.wait_for_selector("#diff-summary", timeout=120_000)
    assert page.locator(f"table.diff a[href='/submissions/{uploaded['alice']}']").count() == 1
    screenshot(page, "regrade-dry-run")
    assert _api(live_server, f"/api/v1/submissions/{uploaded['alice']}")["total"] == before
    page.click("#apply")
    page.wait_for_url(re.compile(r"/regrades/\d+$"))
    # The page reloads itself every two seconds while the job runs.
    page.locator("#job-status", has_text=re.compile("done|failed")).wait_for(timeout=120_000)
    assert "done" in page.inner_text("#job-status")
    screenshot(page, "regrade-job")
    assert _api(live_server, f"/api/v1/submissions/{uploaded['alice']}")["total"] != before


def test_a_student_sees_their_own_work_and_is_refused_staff_pages(
    page: Any, live_server: LiveServer, uploaded: dict[str, int]
) -> None:
    sign_in(page, live_server, "alice", "/")
    links = page.locator("main a[href^='/submissions/']")
    assert links.count() >= 1
    assert page.locator(f"a[href='/submissions/{uploaded['bob']}']").count() == 0
    screenshot(page, "student-home")
    page.goto(f"/submissions/{uploaded['alice']}")
    text = page.inner_text("main")
    assert "Feedback" in text and "confidence" not in text and "evidence" not in text
    screenshot(page, "student-submission")
    response = page.goto(f"/assignments/{SLUG}/review")
    assert response.status == 403 and "Course staff only" in page.inner_text("main")
    screenshot(page, "student-refused")
    assert page.goto(f"/submissions/{uploaded['bob']}").status == 404
