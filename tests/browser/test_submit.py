"""Submitting in Chromium, each a whole task: a student signs in, reads the handout, drops a
file (XHR with progress) and sees the graded result with the wrong-assignment warning; staff
upload several files at once on the Submissions page and watch the batch grade by itself."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser.conftest import DESKTOP, PHONE, LiveServer, fits, screenshot, sign_in

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


# A notebook as students hand it in: markdown answers with LaTeX, code under its heading.
def _notebook(d_head: str) -> bytes:
    cells = [
        ("markdown", f"## B1\n$d_{{head}} = 768 / 12 = {d_head}$\n"),
        ("markdown", "## A4\nWe divide by $\\sqrt{d_k}$: $q \\cdot k$ has variance $d_k$.\n"),
        ("markdown", "## B3\n"),
        ("code", "import numpy as np\n\ndef attention(Q, K, V):\n"
                 "    s = Q @ K.T / np.sqrt(Q.shape[-1])\n"
                 "    w = np.exp(s - s.max(-1, keepdims=True))\n"
                 "    w = w / w.sum(-1, keepdims=True)\n    return w @ V, w\n"),
    ]
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {"cell_type": kind, "metadata": {}, "source": text.splitlines(keepends=True),
         **({"outputs": [], "execution_count": None} if kind == "code" else {})}
        for kind, text in cells]}).encode()


def _tab_to(page: Any, selector: str, presses: int = 60) -> None:
    """Press Tab until the element matching `selector` has the focus (the page's own order)."""
    for _ in range(presses):
        page.keyboard.press("Tab")
        if page.evaluate("(s) => document.activeElement.matches(s)", selector):
            return
    raise AssertionError(f"{selector} is not reached with Tab on {page.url}")


def _upload_with_the_keyboard(page: Any, document: Path) -> int:
    """On the assignment's page: the file field reached and the file sent with Tab and Enter;
    the page shows the grading, then the result. Returns the submission's id."""
    page.wait_for_load_state("networkidle")  # the form's script set up (progress, drop zone)
    _tab_to(page, "#file")
    # The file dialog is the system's, not the page's: the file is chosen for the focused field
    # (headless Chromium opens the dialog on Enter only now and then).
    page.locator("#file:focus").set_input_files(str(document))
    _tab_to(page, "#upload")
    page.keyboard.press("Enter")
    page.wait_for_selector("#result-status")
    seen = page.inner_text("#result-status")
    assert seen.startswith(("Grading hw", "Received and checked")), seen
    page.wait_for_selector("text=Received and checked", timeout=120_000)
    return int(page.url.rsplit("submission=", 1)[1])


def _staff(server: LiveServer, method: str, path: str, **body: Any) -> httpx.Response:
    return httpx.request(method, f"{server.base}{path}", timeout=60, json=body or None,
                         headers={"Authorization": f"Bearer {server.tokens['prof']}"})


@pytest.mark.parametrize(("who", "size"), [("alice", DESKTOP), ("bob", PHONE)])
def test_a_student_s_whole_task_with_the_keyboard_alone(
    page: Any, live_server: LiveServer, tmp_path: Path, who: str, size: dict[str, int]
) -> None:
    """Sign in, find the assignment, upload a notebook, watch it grade, read the feedback
    (an instructor's LaTeX rendered), upload again: Tab and Enter only, at desktop and phone
    width, nothing wider than the screen."""
    shot = f"student-task-{'phone' if size is PHONE else 'desktop'}"
    page.set_viewport_size(size)
    page.goto("/")
    _tab_to(page, "input[name=token]")
    page.keyboard.type(live_server.tokens[who])
    with page.expect_navigation():
        page.keyboard.press("Enter")
    _tab_to(page, f'a[href="/assignments/{SLUG}/submit"]')
    with page.expect_navigation():
        page.keyboard.press("Enter")
    first = tmp_path / "hw.ipynb"
    first.write_bytes(_notebook("12"))
    sid = _upload_with_the_keyboard(page, first)
    # the parts of a question that wait alike share a row, not a wall of the same sentence
    assert "A1 (3 parts)" in page.inner_text("#result")
    fits(page)
    screenshot(page, f"{shot}-result")
    # Staff decide B1's first part with a comment written in LaTeX, and publish.
    comment = "Not 12: that is h. $d_{head} = d_{model} / h = 64$."
    decided = _staff(live_server, "PUT", f"/api/v1/submissions/{sid}/items/b1.d_head/override",
                     points=1, comment=comment)
    assert decided.status_code == 200, decided.text
    assert _staff(live_server, "POST", f"/api/v1/assignments/{SLUG}/publish").is_success
    page.reload()
    _tab_to(page, f'#result a[href="/submissions/{sid}"]')
    with page.expect_navigation():
        page.keyboard.press("Enter")
    page.wait_for_selector(".math-view:not([hidden]) math")
    assert comment in page.inner_text("main")
    rendered = page.locator(".math-view .tex").first
    assert "$" not in rendered.inner_text() and rendered.locator("math msub").count() == 2
    fits(page)
    screenshot(page, f"{shot}-feedback")
    # Upload again from the submission page: its assignment link leads back to the form.
    _tab_to(page, f'a[href="/assignments/{SLUG}/submit"]')
    with page.expect_navigation():
        page.keyboard.press("Enter")
    second = tmp_path / "hw.ipynb"
    second.write_bytes(_notebook("64"))
    again = _upload_with_the_keyboard(page, second)
    assert again != sid
    mine = page.inner_text("main")
    assert f"#{again} counts" in mine and f"#{sid}" in mine
    fits(page)
    screenshot(page, f"{shot}-again")
    assert _staff(live_server, "DELETE", f"/api/v1/assignments/{SLUG}/publish").is_success
