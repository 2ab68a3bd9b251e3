"""The active-grading page (`/assignments/{slug}/active/{item}`), part of the web app: signed in
and refused like its other pages (app/web/auth.py), in its layout. One answer at a time, the one
the machine proposes; the points box has the focus and holds the machine's suggestion, so Enter
accepts it and typing replaces it. The form posts back here with the session's CSRF token and
answers with a redirect to the page (post/redirect/get). `/assignments/{slug}/active` is the same
across the assignment's written items: the next proposal of all of them (`assignment.py`)."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Form, Query, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.active import assignment as across
from app.active import service
from app.deps import MAX_ID, SessionDep, SettingsDep
from app.web.auth import Signed, form_points, nonce, staff, staff_post
from app.web.markup import e as esc
from app.web.markup import layout, pts
from app.web.routing import PageRoute

router = APIRouter(tags=["active grading (pages)"], route_class=PageRoute)
SHOWN = 200  # answers listed under the proposal at most


def page_url(slug: str, item_id: str, **query: int) -> str:
    url = f"/assignments/{quote(slug, safe='')}/active/{quote(item_id, safe='')}"
    return f"{url}?{urlencode(query)}" if query else url


def across_url(slug: str, **query: int | str) -> str:
    url = f"/assignments/{quote(slug, safe='')}/active"
    return f"{url}?{urlencode(query)}" if query else url


REASONS = {
    "settles": "its decision settles the most: {n} nearly identical undecided answers follow it",
    "least sure": "the machine is least sure of it",
    "audit": "a random check: it keeps the error estimate honest",
}


def proposal_form(state: service.ItemState, csrf: str, action: str | None = None) -> str:
    """The proposed answer and the points box (Enter decides). `action`: where the form posts
    (the item's page by default; the page across items posts there with the item's id)."""
    proposal = state.proposal
    if proposal is None:
        return '<p class="done" id="all-decided">Every answer is decided.</p>'
    answer = state.answer(proposal.key)
    why = REASONS.get(proposal.reason, proposal.reason).format(n=proposal.settles)
    which = ""
    if action is None:
        action = page_url(state.slug, state.item_id) + "/decide"
    else:
        which = f'<input type="hidden" name="item_id" value="{esc(state.item_id)}">'
    return (
        f'<section class="proposal" aria-label="Next answer">'
        f"<h2>Answer of {esc(answer.student or '—')} <span class=\"muted\">"
        f"#{answer.submission_id}</span></h2>"
        f'<p class="muted">Asked because {esc(why)}.</p>'
        f'<pre class="answer">{esc(answer.answer)}</pre>'
        f"<p>Machine suggestion: <strong>{esc(pts(answer.suggested_points))}</strong> of "
        f"{esc(pts(state.max_points))} (probably wrong: {answer.error_probability:.0%})</p>"
        f'<form method="post" action="{action}" class="decide" id="decide">'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}">{which}'
        f'<input type="hidden" name="submission_id" value="{answer.submission_id}">'
        f'<label>Points <input type="number" name="points" step="0.01" min="0" '
        f'max="{esc(pts(state.max_points))}" value="{esc(pts(answer.suggested_points))}" '
        f'required autofocus inputmode="decimal"></label> '
        f'<label>Feedback <input name="feedback" maxlength="5000" size="30"></label> '
        f'<button type="submit">Decide <kbd>Enter</kbd></button></form></section>'
    )


def _rows(state: service.ItemState) -> str:
    listed = sorted(state.answers, key=lambda a: (a.decision is not None,
                                                  -a.error_probability, a.submission_id))
    rows = []
    for a in listed[:SHOWN]:
        mark = (f'<span class="done">{esc(pts(a.decision))} decided</span>'
                if a.decision is not None else f"{a.error_probability:.0%} unsure")
        rows.append(f'<tr data-submission="{a.submission_id}"><td>{esc(a.student or "—")}</td>'
                    f"<td>{esc(pts(a.suggested_points))}</td><td>{mark}</td>"
                    f'<td class="answer">{esc(a.answer[:300])}</td></tr>')
    more = (f'<p class="muted">{len(listed) - SHOWN} more not shown.</p>'
            if len(listed) > SHOWN else "")
    return (f"<details><summary>All {len(state.answers)} answers (machine suggestion, re-scored "
            f"with the decisions)</summary><table><thead><tr><th>Student</th><th>Machine</th>"
            f"<th>State</th><th>Answer</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
            f"{more}</details>")


def body(state: service.ItemState, csrf: str, decided: int | None) -> str:
    e = state.estimate
    verdict = ('<strong class="done" id="done">Done</strong>' if e.done
               else '<strong id="not-done">Not done</strong>')
    flash = (f'<p class="flash" role="status">Decided submission {decided}; the undecided '
             "answers were re-scored.</p>" if decided is not None else "")
    groups = f"/assignments/{quote(state.slug, safe='')}/groups/{quote(state.item_id, safe='')}"
    return (
        f'<p class="summary"><span id="decided">{state.decided}</span> of {len(state.answers)} '
        f"answers decided · estimated error among the undecided "
        f'<span id="estimate">{e.share:.1%}</span> (≈{e.expected_wrong:.1f} answers; '
        f"{e.checks} held-back check{'' if e.checks == 1 else 's'}) · "
        f"target {state.target:.0%} · {verdict} · least sure undecided answer "
        f'<span id="least-sure">{e.least_sure:.0%}</span> likely off</p>'
        f"{flash}{proposal_form(state, csrf)}"
        '<p class="muted">Estimate: each undecided answer\'s probability of being more than '
        ""
        f"{esc(pts(state.tolerance))} points off (1 − the machine's confidence), scaled by the "
        "errors seen against those predicted on the decisions taken here, summed. "
        f'<a href="{groups}">Answer groups of this item</a> · '
        f'<a href="{across_url(state.slug)}" id="across-link">Next across this assignment\'s '
        "written items</a></p>"
        f"{_rows(state)}"
    )


@router.get("/assignments/{slug}/active/{item_id}", response_class=HTMLResponse,
            include_in_schema=False)
def active_page(slug: str, item_id: str, request: Request, session: SessionDep,
                settings: SettingsDep,
                decided: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None) -> Response:
    """One written item graded actively: the proposed answer, the estimate, all answers."""
    who = staff(request, session)
    if not isinstance(who, Signed):
        return who
    state = service.item_state(session, slug, item_id, settings.grading_options())
    title = f"Active grading: {state.item_id} · {state.title}"
    return layout(title, body(state, who.viewer.csrf, decided), who.viewer, nonce(request),
                  slug=slug)


@router.post("/assignments/{slug}/active/{item_id}/decide", include_in_schema=False)
def decide_from_page(
    slug: str,
    item_id: str,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    csrf: Annotated[str, Form(max_length=200)],
    submission_id: Annotated[int, Form(ge=1, le=MAX_ID)],
    points: Annotated[str, Form(max_length=30)],
    feedback: Annotated[str, Form(max_length=5000)] = "",
) -> Response:
    who = staff_post(request, session, csrf)
    if not isinstance(who, Signed):
        return who
    service.decide(session, slug, item_id, submission_id, form_points(points), feedback, who.user,
                   settings.grading_options())
    return RedirectResponse(page_url(slug, item_id, decided=submission_id),
                            status.HTTP_303_SEE_OTHER)


def _standings(state: across.AssignmentState) -> str:
    rows = []
    for s in state.items:
        if not s.answers:
            continue
        mark = ('<span class="done">done</span>' if s.estimate.done
                else f"{s.estimate.share:.1%}")
        chosen = ' aria-current="true"' if state.next is not None and s is state.next else ""
        rows.append(
            f'<tr data-item="{esc(s.item_id)}"{chosen}><td><a href="'
            f'{page_url(state.slug, s.item_id)}">{esc(s.item_id)}</a></td>'
            f"<td>{s.decided} of {len(s.answers)}</td><td>{mark}</td>"
            f"<td>{s.estimate.least_sure:.0%}</td></tr>")
    empty = sum(not s.answers for s in state.items)
    note = (f'<p class="muted">{empty} written item{" has" if empty == 1 else "s have"} no '
            "answers yet.</p>" if empty else "")
    return ("<table><thead><tr><th>Item</th><th>Decided</th><th>Estimated error</th>"
            f"<th>Least sure</th></tr></thead><tbody>{''.join(rows)}</tbody></table>{note}")


def across_body(state: across.AssignmentState, csrf: str, decided: int | None,
                item: str | None) -> str:
    e = state.estimate
    verdict = ('<strong class="done" id="done">Done</strong>' if e.done
               else '<strong id="not-done">Not done</strong>')
    flash = (f'<p class="flash" role="status">Decided submission {decided} of '
             f"{esc(item or '')}; the item's undecided answers were re-scored.</p>"
             if decided is not None else "")
    if state.next is None:
        step = '<p class="done" id="all-decided">Every answer is decided.</p>'
    else:
        step = (f'<h2 id="next-item">Next: <a href="{page_url(state.slug, state.next.item_id)}">'
                f"{esc(state.next.item_id)}</a> · {esc(state.next.title)}</h2>"
                + proposal_form(state.next, csrf, across_url(state.slug)))
    return (
        f'<p class="summary"><span id="decided">{state.decided}</span> of {state.total} '
        f"answers decided across {len(state.items)} written item"
        f"{'' if len(state.items) == 1 else 's'} · estimated error among the undecided "
        f'<span id="estimate">{e.share:.1%}</span> (≈{e.expected_wrong:.1f} answers; '
        f"{e.checks} held-back check{'' if e.checks == 1 else 's'}) · target {e.target:.0%} · "
        f'{verdict} · least sure undecided answer <span id="least-sure">{e.least_sure:.0%}'
        "</span> likely off</p>"
        f"{flash}{step}"
        '<p class="muted">The next answer is the proposal of an item with fewer than 7% of its '
        "answers decided, else of the item whose least sure undecided answer is the least sure "
        "of all: an item whose remaining answers the machine is fairly sure of waits. The "
        "estimate sums every item's probably wrong answers.</p>"
        f"{_standings(state)}"
    )


@router.get("/assignments/{slug}/active", response_class=HTMLResponse, include_in_schema=False)
def across_page(slug: str, request: Request, session: SessionDep, settings: SettingsDep,
                decided: Annotated[int | None, Query(ge=1, le=MAX_ID)] = None,
                item: Annotated[str | None, Query(max_length=100)] = None) -> Response:
    """The assignment's written items graded actively: the next proposal across them."""
    who = staff(request, session)
    if not isinstance(who, Signed):
        return who
    state = across.assignment_state(session, slug, settings.grading_options())
    return layout(f"Active grading across {slug}'s written items",
                  across_body(state, who.viewer.csrf, decided, item), who.viewer,
                  nonce(request), slug=slug)


@router.post("/assignments/{slug}/active", include_in_schema=False)
def decide_across(
    slug: str,
    request: Request,
    session: SessionDep,
    settings: SettingsDep,
    csrf: Annotated[str, Form(max_length=200)],
    item_id: Annotated[str, Form(min_length=1, max_length=100)],
    submission_id: Annotated[int, Form(ge=1, le=MAX_ID)],
    points: Annotated[str, Form(max_length=30)],
    feedback: Annotated[str, Form(max_length=5000)] = "",
) -> Response:
    who = staff_post(request, session, csrf)
    if not isinstance(who, Signed):
        return who
    service.decide(session, slug, item_id, submission_id, form_points(points), feedback, who.user,
                   settings.grading_options())
    return RedirectResponse(across_url(slug, decided=submission_id, item=item_id),
                            status.HTTP_303_SEE_OTHER)
