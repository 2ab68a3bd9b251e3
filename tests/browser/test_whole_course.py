"""The whole course in Chromium, one story (issue #31): a student signs in, drops a file on their
assignment page (the progress bar runs to 100) and sees the result; staff bulk-upload ten files on
the Submissions page and watch them grade without reloading; review with the keyboard (typed
points, Enter); decide an answer group, then the next, without the mouse; edit an item on a
submission page; publish past the warning that names what is still in review; the student asks for
a regrade, staff answer it and change the points; the student reads the final text, and that text
is the same on the student's pages, in the API, in their results.json and in the staff preview;
last, the exports page warns about what is not final and the Canvas assignment id typed there names
the downloaded file's grade column.

Every step goes through the pages; the API is only read, to check what was stored."""

from __future__ import annotations

import csv
import html
import io
import re
from pathlib import Path
from typing import Any

import httpx

from tests.browser.conftest import DESKTOP, LiveServer, both_sizes, screenshot, sign_in

SLUG = "transformer-basics"
ITEM = "b1.d_head"
# Alice's own upload: two readings of d_head, so b1.d_head waits for a human.
ALICE = (
    "# Homework\n\n## A1\nXOR is not linearly separable; a hidden layer with a "
    "non-linearity fixes it.\n\n## B1\nd_head = 12 maybe 64\n"
)
# The ten uploaded by staff, one file per student (the student is the file name): three alike,
# two alike, five right; every answer of a file that answers so little waits for a human.
TEN = {
    **{f"tri{n}": "d_head = 3 maybe 96" for n in range(3)},
    **{f"fiv{n}": "d_head = 5 maybe 48" for n in range(2)},
    **{f"six{n}": "d_head = 64" for n in range(5)},
}
# A file dropped on the upload form's drop zone as a browser does it (a DragEvent carrying the
# file), with the progress bar's values logged to the console.
DROP = """(text) => {
  const bar = document.getElementById("upload-progress");
  const value = Object.getOwnPropertyDescriptor(HTMLProgressElement.prototype, "value");
  Object.defineProperty(bar, "value", {get() { return value.get.call(this); },
    set(v) { console.log("progress " + Number(v)); value.set.call(this, v); }});
  const data = new DataTransfer();
  data.items.add(new File([text], "homework.md", {type: "text/markdown"}));
  const zone = document.getElementById("drop");
  for (const kind of ["dragenter", "dragover", "drop"]) {
    zone.dispatchEvent(new DragEvent(kind, {dataTransfer: data, bubbles: true, cancelable: true}));
  }
}"""
COMMENT = "My working divides 768 by 12, which is 64; the 12 was the number of heads."
REPLY = "Right: the working shows 64. Three of four points, one off for the stray 12."


def _api(server: LiveServer, path: str, who: str = "prof") -> Any:
    response = httpx.get(
        f"{server.base}{path}",
        timeout=60,
        headers={"Authorization": f"Bearer {server.tokens[who]}"},
    )
    assert response.status_code == 200, response.text
    return response.json()


def _item(server: LiveServer, sid: int, who: str = "prof") -> dict[str, Any]:
    body = _api(server, f"/api/v1/submissions/{sid}", who)
    return dict(next(i for i in body["items"] if i["id"] == ITEM))



def _student_uploads_and_sees_the_result(page: Any, server: LiveServer) -> int:
    sign_in(page, server, "alice")
    with page.expect_navigation():
        page.click(f'a[href="/assignments/{SLUG}/submit"]')
    # The file dropped on the drop zone; the progress bar's values reported as they are set
    # (the page leaves for the result once the upload is in).
    progress: list[float] = []

    def logged(message: Any) -> None:
        if message.text.startswith("progress "):
            progress.append(float(message.text.split()[1]))

    page.on("console", logged)
    page.evaluate(DROP, ALICE)
    assert page.evaluate("document.getElementById('file').files[0].name") == "homework.md"
    page.click("#upload")
    page.wait_for_selector("text=Received and checked", timeout=120_000)
    assert progress and progress[-1] == 100, progress
    sid = int(re.findall(r"submission=(\d+)", page.url)[0])
    result = page.inner_text("#result")
    assert "Grades are not published yet." in result and "Being reviewed by course staff." in result
    return sid


def _staff_bulk_upload_ten(page: Any, server: LiveServer, folder: Path) -> dict[str, int]:
    sign_in(page, server, "prof", f"/assignments/{SLUG}/submissions")
    page.wait_for_selector("#batch-status", state="attached")
    # What the batch table shows, recorded as it changes; a marker that a reload would lose.
    page.evaluate("""() => { window.storyMarker = true; window.seenStates = new Set();
      new MutationObserver(() => document.querySelectorAll('#batch table.batch td:nth-child(4)')
        .forEach(td => window.seenStates.add(td.textContent)))
        .observe(document.getElementById('batch'),
                 {subtree: true, childList: true, characterData: true}); }""")
    files = []
    for student, b1 in TEN.items():
        path = folder / f"{student}.md"
        path.write_text(f"# Homework\n\n## B1\n{b1}\n")
        files.append(str(path))
    page.set_input_files("#file", files)
    page.click("#upload")
    page.wait_for_selector("#batch-status:has-text('10 of 10 graded')", timeout=240_000)
    assert page.evaluate("window.storyMarker === true")  # the same page, never reloaded
    seen = set(page.evaluate("Array.from(window.seenStates)"))
    assert "uploading" in seen and seen & {"needs_review", "graded"}, seen
    rows = page.locator("table.batch tbody tr")
    assert rows.count() == 10
    table = page.inner_text("table.batch")
    assert all(student in table for student in TEN)
    screenshot(page, "whole-course-bulk-upload")
    ids = {}
    for n in range(10):
        cells = rows.nth(n).locator("td")
        ids[cells.nth(2).inner_text()] = int(cells.nth(0).inner_text().lstrip("#"))
    return ids


def _review_with_the_keyboard(page: Any, server: LiveServer, alice: int) -> None:
    page.goto(f"/assignments/{SLUG}/review?item_id={ITEM}")
    page.wait_for_selector("#decide-form")
    assert page.get_attribute("input[name=submission_id]", "value") == str(alice)
    page.keyboard.press("p")
    page.keyboard.type("0.5")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert page.inner_text("#stored-points") in {"0.5", "0.50"}
    assert _item(server, alice)["points"] == 0.5


def _two_groups_without_the_mouse(page: Any, server: LiveServer, ids: dict[str, int]) -> None:
    page.goto(f"/assignments/{SLUG}/groups/{ITEM}")
    order = page.locator("section.group").evaluate_all("s => s.map(g => g.id)")

    def holding(student: str) -> str:
        row = page.locator(f'tr[data-submission="{ids[student]}"]')
        return str(page.locator("section.group", has=row).get_attribute("id"))

    for _ in range(order.index(holding("tri0"))):
        page.keyboard.press("j")
    page.keyboard.press("s")
    page.keyboard.type("2")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert [_item(server, ids[f"tri{n}"])["points"] for n in range(3)] == [2, 2, 2]
    assert page.locator("section.group.current").get_attribute("id") == holding("tri0")
    assert page.locator("section.group").evaluate_all("s => s.map(g => g.id)") == order
    steps = order.index(holding("fiv0")) - order.index(holding("tri0"))
    for _ in range(abs(steps)):
        page.keyboard.press("j" if steps > 0 else "k")
    with page.expect_navigation():
        page.keyboard.press("a")
    for n in range(2):
        fives = _item(server, ids[f"fiv{n}"])
        assert fives["override"] is not None and fives["points"] == fives["machine_points"]


def _edit_on_the_submission_page(page: Any, server: LiveServer, sid: int) -> None:
    page.goto(f"/submissions/{sid}")
    page.get_by_label(f"Points for {ITEM}").focus()
    page.keyboard.press("Control+a")
    page.keyboard.type("4")
    page.keyboard.press("Tab")
    page.keyboard.type("Right, with the working shown.")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert _item(server, sid)["points"] == 4
    # Not published yet: the preview says what the student reads now, and once published.
    preview = page.locator(f".student-sees[data-item='{ITEM}']").first.inner_text()
    assert (
        "Once the grades are published: 4 / 4 points · “Right, with the working shown.”" in preview
    ), preview


def _publish_past_the_warning(page: Any) -> None:
    page.goto(f"/assignments/{SLUG}/settings")
    warning = page.locator("#publish-warning").inner_text()
    assert re.search(r"\d+ answer\(s\) are still in review", warning), warning
    with page.expect_navigation():
        page.click("#publish")
    assert "Not published" in page.locator("p.error").inner_text()
    page.check("#publish-anyway")
    with page.expect_navigation():
        page.click("#publish")
    assert page.locator("p.saved").inner_text() == "Grades published."


def _student_asks(page: Any, alice: int) -> None:
    page.goto(f"/submissions/{alice}")
    row = page.locator("table.items tr", has_text=ITEM)
    assert re.search(r"0\.50? / 4", row.inner_text()) and "0.5 of 4 points." in row.inner_text()
    page.locator(f"summary[aria-label='Ask for a regrade of {ITEM}']").focus()
    page.keyboard.press("Enter")
    page.get_by_label(f"Why should {ITEM} be regraded?").focus()
    page.keyboard.type(COMMENT)
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "waiting for course staff" in page.inner_text("#regrade-b1\\.d_head")


def _staff_answer(page: Any) -> None:
    page.goto(f"/assignments/{SLUG}/review")
    with page.expect_navigation():
        page.locator("#regrade-requests a", has_text=f"alice · {ITEM}").click()
    assert COMMENT in page.inner_text(".thread")
    page.locator("#reply").focus()
    page.keyboard.type(REPLY)
    page.keyboard.press("Tab")
    page.keyboard.press("Control+A")
    page.keyboard.type("3")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "points changed to 3" in page.inner_text("#answered")


def _export_for_canvas(page: Any) -> None:
    """The exports page warns (answers still in review, no roster); the Canvas assignment id
    typed on the page names the grade column of the file it downloads."""
    page.goto(f"/assignments/{SLUG}/exports")
    warnings = page.inner_text("#export-warnings")
    assert "still need review" in warnings and "roster" in warnings.lower(), warnings
    page.fill("#canvas_assignment_id", "4417")
    with page.expect_download() as download:
        page.click("#canvas-download")
    rows = list(csv.reader(io.StringIO(Path(download.value.path()).read_text())))
    assert rows[0][-1] == "Transformer basics (4417)"
    students = {row[0] for row in rows[2:]}
    assert {"alice", *TEN} <= students, students


def _said(page: Any) -> str:
    return str(page.locator(f".student-sees[data-item='{ITEM}'] .said").first.inner_text())


def test_a_course_from_upload_to_regrade(
    browser: Any, live_server: LiveServer, tmp_path: Path
) -> None:
    contexts = [browser.new_context(base_url=live_server.base, viewport=DESKTOP) for _ in range(2)]
    student, staff = (c.new_page() for c in contexts)
    for tab in (student, staff):
        tab.set_default_timeout(30_000)
    try:
        alice = _student_uploads_and_sees_the_result(student, live_server)
        ids = _staff_bulk_upload_ten(staff, live_server, tmp_path)
        _review_with_the_keyboard(staff, live_server, alice)
        _two_groups_without_the_mouse(staff, live_server, ids)
        _edit_on_the_submission_page(staff, live_server, ids["six0"])
        _publish_past_the_warning(staff)
        _student_asks(student, alice)
        _staff_answer(staff)

        # The student reads the answer and the final text; the same text everywhere.
        student.reload()
        thread = student.inner_text("#regrade-b1\\.d_head")
        assert REPLY in thread and re.search(r"Points changed: 0\.50? → 3 of 4\.", thread)
        row = student.locator("table.items tr", has_text=ITEM).inner_text()
        final = "3 of 4 points."
        assert "3 / 4" in row and final in row
        both_sizes(student, "whole-course-student-final")
        assert _item(live_server, alice, "alice")["feedback"] == final
        exported = _api(live_server, f"/api/v1/submissions/{alice}/results.json", "alice")
        output = next(t["output"] for t in exported["tests"] if t["name"].endswith(ITEM))
        assert output == final
        staff.goto(f"/submissions/{alice}")
        assert html.unescape(_said(staff)) == final
        _export_for_canvas(staff)
    finally:
        for context in contexts:
            context.close()
