"""The active-grading page (`/assignments/{slug}/active/{item}`), part of the web app: signed in
and refused like its other pages (app/web/auth.py), in its layout. One answer at a time, the one
the machine proposes; the points box has the focus and holds the machine's suggestion, so Enter
accepts it and typing replaces it. The form posts back here with the session's CSRF token and
answers with a redirect to the page (post/redirect/get)."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Form, Query, Request, status
from fastapi.responses import HTMLResponse, RedirectResponse, Response

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


REASONS = {
    "settles": "its decision settles the most: {n} nearly identical undecided answers follow it",
    "least sure": "the machine is least sure of it",
    "audit": "a random check: it keeps the error estimate honest",
}


def _proposal(state: service.ItemState, csrf: str) -> str:
    proposal = state.proposal
    if proposal is None:
        return '<p class="done" id="all-decided">Every answer is decided.</p>'
    answer = state.answer(proposal.key)
    why = REASONS.get(proposal.reason, proposal.reason).format(n=proposal.settles)
    action = page_url(state.slug, state.item_id) + "/decide"
    return (
        f'<section class="proposal" aria-label="Next answer">'
        f"<h2>Answer of {esc(answer.student or '—')} <span class=\"muted\">"
        f"#{answer.submission_id}</span></h2>"
        f'<p class="muted">Asked because {esc(why)}.</p>'
        f'<pre class="answer">{esc(answer.answer)}</pre>'
        f"<p>Machine suggestion: <strong>{esc(pts(answer.suggested_points))}</strong> of "
        f"{esc(pts(state.max_points))} (probably wrong: {answer.error_probability:.0%})</p>"
        f'<form method="post" action="{action}" class="decide" id="decide">'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
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
        f"{flash}{_proposal(state, csrf)}"
        '<p class="muted">Estimate: each undecided answer\'s probability of being more than '
        ""
        f"{esc(pts(state.tolerance))} points off (1 − the machine's confidence), scaled by the "
        "errors seen against those predicted on the decisions taken here, summed. "
        f'<a href="{groups}">Answer groups of this item</a></p>'
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
