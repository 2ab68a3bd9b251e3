"""HTML building blocks: every value that reaches a page goes through `e` (html.escape), and the
layout links the one bundled stylesheet and script the app serves itself (no CDN)."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal

from fastapi.responses import HTMLResponse

PRIVATE = {"Cache-Control": "no-store"}
MAX_HIGHLIGHTS = 50


def e(value: object) -> str:
    """Escaped text for an element or a quoted attribute; None shows as an en dash."""
    if value is None:
        return "–"
    return html.escape(str(value), quote=True)


def pts(value: Decimal | None) -> str:
    if value is None:
        return "–"
    return format(value.normalize(), "f") if value == value.to_integral() else str(value)


def pct(value: float | None) -> str:
    return "–" if value is None else f"{round(value * 100)}%"


@dataclass(frozen=True)
class Viewer:
    """Who the page is for: their name and role, and the session's CSRF token for forms."""

    name: str
    staff: bool
    csrf: str


def nav(viewer: Viewer | None, slug: str | None = None) -> str:
    links = [("/", "Assignments" if viewer is None or viewer.staff else "My submissions")]
    if slug is not None and viewer is not None and viewer.staff:
        base = f"/assignments/{e(slug)}"
        links += [
            (f"{base}/dashboard", "Dashboard"),
            (f"{base}/submissions", "Submissions"),
            (f"{base}/review", "Review queue"),
            (f"{base}/groups", "Answer groups"),
            (f"{base}/regrade-requests", "Regrade requests"),
            (f"{base}/regrade", "Regrade"),
            (f"{base}/exports", "Exports"),
            (f"{base}/settings", "Settings"),
        ]
    items = "".join(f'<a href="{href}">{label}</a>' for href, label in links)
    who = ""
    if viewer is not None:
        who = (
            f'<form method="post" action="/sign-out" class="signout">'
            f'<span>{e(viewer.name)} ({"staff" if viewer.staff else "student"})</span> '
            f'<input type="hidden" name="csrf" value="{e(viewer.csrf)}">'
            f'<button type="submit">Sign out</button></form>'
        )
    # The skip link comes first in the Tab order: keyboard users pass the links in one key.
    return (f'<a class="skip" href="#main">Skip to content</a>'
            f'<nav class="top" aria-label="Site"><b>gradeformer</b>{items}{who}</nav>')


def layout(
    title: str,
    body: str,
    viewer: Viewer | None,
    nonce: str,
    slug: str | None = None,
    status: int = 200,
    refresh: int | None = None,
) -> HTMLResponse:
    """A whole page. `nonce` is the CSP nonce the bundled script carries."""
    meta = f'<meta http-equiv="refresh" content="{refresh}">' if refresh else ""
    page = (
        '<!doctype html><html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"{meta}<title>gradeformer: {e(title)}</title>"
        '<link rel="stylesheet" href="/static/web.css"></head><body>'
        f'{nav(viewer, slug)}<main id="main"><h1>{e(title)}</h1>{body}</main>'
        f'<script nonce="{e(nonce)}" src="/static/web.js"></script></body></html>'
    )
    return HTMLResponse(page, status_code=status, headers=PRIVATE)


def table(headers: Sequence[str], rows: Iterable[Sequence[str]], css: str = "") -> str:
    """Cells are markup already (escape values with `e` first). Each cell carries its column's
    name (`data-label`): a table shown as cards on a phone labels its cells with it."""
    head = "".join(f"<th>{e(h)}</th>" for h in headers)
    thead = f"<thead><tr>{head}</tr></thead>" if any(headers) else ""
    labels = [f' data-label="{e(h)}"' if h else "" for h in headers]
    body = "".join(
        "<tr>" + "".join(f"<td{labels[i] if i < len(labels) else ''}>{c}</td>"
                         for i, c in enumerate(row)) + "</tr>"
        for row in rows)
    cls = f' class="{css}"' if css else ""
    return f"<table{cls}>{thead}<tbody>{body}</tbody></table>"


def hidden(name: str, value: object) -> str:
    return f'<input type="hidden" name="{e(name)}" value="{e(value)}">'


def highlight(text: str, spans: Iterable[tuple[int, int, str]]) -> str:
    """`text` escaped, with each (start, end, title) span inside it wrapped in <mark>.
    Spans out of range, empty or overlapping an earlier one are left out."""
    marks: list[tuple[int, int, str]] = []
    for start, end, title in sorted(spans)[:MAX_HIGHLIGHTS]:
        if 0 <= start < end <= len(text) and (not marks or start >= marks[-1][1]):
            marks.append((start, end, title))
    out: list[str] = []
    at = 0
    for start, end, title in marks:
        out.append(e(text[at:start]))
        out.append(f'<mark title="{e(title)}">{e(text[start:end])}</mark>')
        at = end
    out.append(e(text[at:]))
    return "".join(out)


MATH_MARKS = ("$", "\\(", "\\[")


def math_view(text: str, heading: str, box_id: str = "", view_id: str = "") -> str:
    """`text` again, for web.js to show with its LaTeX rendered (vendored KaTeX, MathML output)
    under `heading` (markup): only when it has math delimiters; hidden until rendered, so a
    browser without the script shows the raw text alone."""
    if not any(mark in text for mark in MATH_MARKS):
        return ""
    box = f' id="{e(box_id)}"' if box_id else ""
    view = f' id="{e(view_id)}"' if view_id else ""
    return (f'<div class="math-view"{view} data-math-view hidden>{heading}'
            f'<div class="doc math tex"{box}>{e(text)}</div></div>')


def student_text(feedback: str, solution: str | None = None) -> str:
    """An item's feedback (and its solution once released) as its student reads it: an
    instructor's comment or a solution written with LaTeX is shown rendered too."""
    rendered = "<p class='muted'>Math rendered</p>"
    shown = f"<div class='staff'>{e(feedback)}</div>" + math_view(feedback, rendered)
    if solution:
        shown += (f"<details><summary>solution</summary><div class='doc'>{e(solution)}</div>"
                  f"{math_view(solution, rendered)}</details>")
    return shown
