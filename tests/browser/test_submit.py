"""Submitting in Chromium, each a whole task: a student signs in, reads the handout, drops a
file (XHR with progress) and sees the graded result with the wrong-assignment warning; staff
upload several files at once on the Submissions page and watch the batch grade by itself."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.browser.conftest import DESKTOP, PHONE, LiveServer, screenshot, sign_in

SLUG = "transformer-basics"
ANSWER = "A1. XOR is not linearly separable; a hidden layer with a non-linearity fixes it.\n"


def _no_horizontal_scroll(page: Any) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"] + 1, width


def test_a_student_uploads_and_sees_the_result(
    page: Any, live_server: LiveServer, tmp_path: Path
) -> None:
    sign_in(page, live_server, "alice")
    page.click(f'a[href="/assignments/{SLUG}/submit"]')
    page.wait_for_selector("#upload-form")
    assert "Why can a single perceptron not compute XOR" in page.inner_text("main")
    page.set_viewport_size(DESKTOP)
    screenshot(page, "student-submit")
    document = tmp_path / "alice.txt"
    document.write_text(ANSWER)
    page.set_input_files("#file", str(document))
    page.click("#upload")
    page.wait_for_selector("#result-status")
    # The page follows the grading by itself until the result is there.
    page.wait_for_selector("text=Received and checked", timeout=60_000)
    assert "1 of 10 questions found: is this the right assignment?" in page.inner_text("#doubt")
    assert "counts" in page.inner_text("main")
    screenshot(page, "student-submit-result")
    page.set_viewport_size(PHONE)
    _no_horizontal_scroll(page)
    screenshot(page, "student-submit-phone")


def test_a_refused_upload_is_explained_in_words(page: Any, live_server: LiveServer,
                                                tmp_path: Path) -> None:
    sign_in(page, live_server, "bob", f"/assignments/{SLUG}/submit")
    wrong = tmp_path / "answers.docx"
    wrong.write_bytes(b"PK\x03\x04 not a document we read")
    page.set_input_files("#file", str(wrong))
    page.click("#upload")
    page.wait_for_selector("#upload-error:has-text('Not uploaded')")
    assert ".docx" in page.inner_text("#upload-error")
    # A notebook cut short: what is wrong with it and what to do, in the student's words.
    page.set_input_files("#file", files=[{"name": "hw.ipynb", "mimeType": "application/json",
                                          "buffer": b'{"cells": ['}])
    page.click("#upload")
    page.wait_for_selector("#upload-error:has-text('notebook')")
    said = page.inner_text("#upload-error")
    assert "is not valid JSON" in said and "save it" in said and "malformed" not in said
    # A file over the limit is refused before it is sent, the limit said in megabytes as on
    # the form (the server's own refusal counts the bytes of the whole request).
    limit = int(str(page.get_attribute("#upload-form", "data-max-bytes")))
    assert "(at most 2 MB)" in page.inner_text("#drop")
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
    page.set_input_files("#file", files=[{"name": "scan.txt", "mimeType": "text/plain",
                                          "buffer": b"x" * (limit + 300 * 1024)}])
    page.click("#upload")
    page.wait_for_selector("#upload-error:has-text('over the limit')")
    assert page.inner_text("#upload-error") == (
        "Not uploaded: scan.txt (2.3 MB) is over the limit of 2 MB per file.")
    assert not sent


def test_staff_bulk_upload_and_watch_the_batch_grade(
    page: Any, live_server: LiveServer, tmp_path: Path
) -> None:
    sign_in(page, live_server, "prof", f"/assignments/{SLUG}/submissions")
    page.set_viewport_size(DESKTOP)
    files = []
    for name in ["dora", "eve", "finn", "gus"]:
        path = tmp_path / f"{name}.txt"
        path.write_text(ANSWER if name != "gus" else "A shopping list: eggs, milk.\n")
        files.append(str(path))
    nameless = tmp_path / ".txt"
    nameless.write_text(ANSWER)
    page.set_input_files("#file", [*files, str(nameless)])
    page.click("#upload")
    page.wait_for_selector("#batch-status:has-text('4 of 4 graded')", timeout=60_000)
    rows = page.locator("table.batch tbody tr")
    assert rows.count() == 5
    text = page.inner_text("table.batch")
    for name in ["dora", "eve", "finn", "gus"]:
        assert name in text
    assert "refused" in text and "no file name to take the student from" in text
    assert "is this the right assignment?" in text
    screenshot(page, "staff-bulk-upload")
    page.set_viewport_size(PHONE)
    _no_horizontal_scroll(page)
    screenshot(page, "staff-bulk-upload-phone")
