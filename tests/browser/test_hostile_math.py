"""Class: one student's LaTeX breaking the math shown for other students' answers on a staff
page. web.js renders each answer's math with KaTeX, whose `throwOnError: false` covers its
parse errors only: LaTeX nested a few thousand deep (braces, `\\sqrt`, `\\left`, `\\text{$`)
overflows the browser's stack, and the RangeError escaped the loop over the page's answers,
so every answer after it (the answer groups page shows many students') stayed unrendered.
Each nesting below fits the 4,000 characters a group's answer is shown with."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.browser.conftest import LiveServer, sign_in

SLUG = "transformer-basics"
ITEM = "a2.collapse"
HONEST = "Stacked linear layers collapse into one linear map: $W_2 W_1 x = W x$."
NESTINGS = {
    "braces": ("{", "}", 1990),
    "square roots": ("\\sqrt{", "}", 570),
    "text in math": ("\\text{$", "$}", 440),
}


def _upload(server: LiveServer, student: str, a2: str) -> None:
    response = httpx.post(
        f"{server.base}/api/v1/assignments/{SLUG}/submissions",
        params={"wait": "true", "student": student},
        json={"answers": {"A2": a2}},
        headers={"Authorization": f"Bearer {server.tokens['prof']}"},
        timeout=120,
    )
    assert response.status_code == 201, response.text


@pytest.mark.parametrize("name", sorted(NESTINGS))
def test_deep_latex_leaves_other_answers_math_rendered(page: Any, live_server: LiveServer,
                                                       name: str) -> None:
    opening, closing, depth = NESTINGS[name]
    hostile = "$" + opening * depth + "x" + closing * depth + "$"
    assert len(hostile) <= 4000
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    # The hostile answer twice: its group is the larger, shown (and rendered) first.
    for n in range(2):
        _upload(live_server, f"deep-{name}-{n}", hostile)
    _upload(live_server, f"honest-{name}", HONEST)
    sign_in(page, live_server, "prof", f"/assignments/{SLUG}/groups/{ITEM}")
    honest = page.locator("section.group", has=page.locator("pre.answer", has_text="W_2 W_1"))
    view = honest.locator("[data-math-view]")
    view.wait_for(state="visible")
    assert view.locator("math").count() >= 1
    deep = page.locator("section.group", has=page.locator("pre.answer", has_text=opening * 50))
    assert deep.locator("[data-math-view]").first.is_visible()  # shown as its own text
    assert not errors, errors
