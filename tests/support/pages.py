"""Helpers for tests that post the web app's forms."""

from __future__ import annotations

import re


def csrf_of(page_text: str) -> str:
    """The CSRF token a page's forms carry (the test fails when the page has none)."""
    found = re.search(r'name="csrf" value="([0-9a-f]{64})"', page_text)
    assert found, "the page carries no CSRF field"
    return found.group(1)
