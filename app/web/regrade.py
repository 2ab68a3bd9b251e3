"""Regrading from the browser: a dry run shows whose totals and items would change; applying
starts the background job (app/regrade/runner.py) and its page follows the progress."""

from __future__ import annotations

from typing import Annotated

import anyio.from_thread
from fastapi import APIRouter, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from app.assignments.service import current_rubric
from app.auth.service import Identity
from app.db.models import User
from app.db.session import unit_of_work
from app.deps import IdPath, SessionDep
from app.errors import NotFound
from app.regrade import jobs
from app.regrade.jobs import JobStatus
from app.regrade.runner import RegradeReport, RegradeRunner
from app.web.auth import Signed, nonce, staff, staff_post
from app.web.markup import Viewer, e, hidden, layout, pts, table
from app.web.routing import PageRoute

router = APIRouter(tags=["web"], route_class=PageRoute)
SHOWN_CHANGES = 500
WHEN = "%Y-%m-%d %H:%M:%S"


def _runner(request: Request) -> RegradeRunner:
    runner: RegradeRunner = request.app.state.regrades
    return runner


def _detached(user: User) -> User:
    # The job runs on the runner's threads, after this request's session has closed.
    return Identity(user.id, user.name, user.role, user.created_at).user()


def _job(job: JobStatus) -> str:
    fraction = f'<progress max="{job.total or 1}" value="{job.done}"></progress>'
    error = f'<p class="error">{e(job.error)}</p>' if job.error else ""
    return (
        f'<p id="job-status">Job #{job.id}: <b>{e(job.status)}</b> · {job.done} of {job.total}'
        f" submissions regraded · {job.changed} changed</p>{fraction}{error}"
        f"<p class='muted'>started {e(job.started_at.strftime(WHEN))}"
        + (f", finished {e(job.finished_at.strftime(WHEN))}" if job.finished_at else "")
        + " (UTC)</p>"
    )


def _form(slug: str, viewer: Viewer, action: str, label: str, button_id: str) -> str:
    return (
        f'<form method="post" action="/assignments/{e(slug)}/regrade/{action}">'
        f'{hidden("csrf", viewer.csrf)}<button type="submit" id="{button_id}">{e(label)}'
        "</button></form>"
    )


@router.get("/assignments/{slug}/regrade", response_class=HTMLResponse, include_in_schema=False)
def regrade_page(slug: str, request: Request, session: SessionDep) -> HTMLResponse:
    """Regrade an assignment against its current rubric (course staff): dry run first."""
    who = staff(request, session)
    if not isinstance(who, Signed):
        return who
    current = current_rubric(session, slug)
    try:
        latest = "<h2>Latest job</h2>" + _job(jobs.latest_status(session, slug))
    except NotFound:
        latest = "<p class='muted'>No regrade has run yet.</p>"
    body = (
        f"<p>Current rubric: <code>{e(current.loaded.content_hash[:12])}</code> "
        f"(version {e(current.loaded.rubric.version)}). A dry run grades every submission again "
        "and shows whose scores would change, storing nothing.</p>"
        + _form(slug, who.viewer, "dry-run", "Dry run", "dry-run") + latest
    )
    return layout(f"Regrade: {slug}", body, who.viewer, nonce(request), slug=slug)


def _diff(report: RegradeReport) -> str:
    rows = []
    for c in report.changes[:SHOWN_CHANGES]:
        items = "<br>".join(
            f"{e(i.item_id)}: {pts(i.old_points)} → {pts(i.new_points)}"
            + (f" ({e(i.old_status)} → {e(i.new_status)})" if i.old_status != i.new_status
               else "")
            for i in c.items
        )
        direction = ""
        if c.old_total is not None and c.new_total is not None:
            direction = "up" if c.new_total > c.old_total else "down" if c.new_total < c.old_total \
                else ""
        rows.append([
            f'<a href="/submissions/{c.submission_id}">#{c.submission_id}</a>',
            e(c.student),
            f'<span class="{direction}">{pts(c.old_total)} → {pts(c.new_total)}</span>',
            f"{e(c.old_status)} → {e(c.new_status)}",
            items or "–",
        ])
    more = (
        f"<p class='muted'>First {SHOWN_CHANGES} of {report.changed} shown.</p>"
        if report.changed > SHOWN_CHANGES else ""
    )
    return table(["submission", "student", "total", "status", "items"], rows, "diff") + more


def _checked(request: Request, slug: str, csrf: str) -> Signed | HTMLResponse:
    """Staff, CSRF and a known assignment, checked in a short read-only transaction of its own:
    the regrade runs on other threads and must not wait on this request's write lock."""
    with unit_of_work(request.app.state.read_sessions) as session:
        who = staff_post(request, session, csrf)
        if not isinstance(who, Signed):
            return who
        current_rubric(session, slug)  # the 404 page for an unknown assignment, before any work
        return Signed(_detached(who.user), who.viewer)


@router.post("/assignments/{slug}/regrade/dry-run", include_in_schema=False)
def dry_run(
    slug: str, request: Request, csrf: Annotated[str, Form(max_length=200)] = ""
) -> Response:
    """Compute the regrade without storing it and show the changes, with a button to apply."""
    who = _checked(request, slug, csrf)
    if not isinstance(who, Signed):
        return who
    report = anyio.from_thread.run(_runner(request).dry_run, slug, who.user)
    summary = (
        f'<p id="diff-summary">Dry run against rubric <code>{e(report.rubric_hash[:12])}</code>: '
        f"{report.total} submissions regraded, <b>{report.changed}</b> would change.</p>"
    )
    apply = _form(slug, who.viewer, "apply", "Apply: regrade for real", "apply")
    body = summary + (_diff(report) if report.changes else "<p>No score would change.</p>") + apply
    return layout(f"Regrade dry run: {slug}", body, who.viewer, nonce(request), slug=slug)


@router.post("/assignments/{slug}/regrade/apply", include_in_schema=False)
def apply(
    slug: str, request: Request, csrf: Annotated[str, Form(max_length=200)] = ""
) -> Response:
    """Start the background regrade (or join the running one) and go to its progress page."""
    who = _checked(request, slug, csrf)
    if not isinstance(who, Signed):
        return who
    runner = _runner(request)
    job_id = runner.running_job(slug)
    if job_id is None:
        job_id = runner.start(slug, who.user)
    return RedirectResponse(f"/regrades/{job_id}", status_code=303)


@router.get("/regrades/{job_id}", response_class=HTMLResponse, include_in_schema=False)
def job_page(job_id: IdPath, request: Request, session: SessionDep) -> HTMLResponse:
    """A regrade job's progress; the page reloads itself every two seconds while it runs."""
    who = staff(request, session)
    if not isinstance(who, Signed):
        return who
    job = jobs.job_status(session, job_id)
    running = job.status == "running"
    done = "" if running else (
        f'<p><a href="/assignments/{e(job.assignment)}/dashboard">Dashboard</a> · '
        f'<a href="/assignments/{e(job.assignment)}/submissions">Submissions</a></p>'
    )
    return layout(
        f"Regrade job #{job_id}: {job.assignment}", _job(job) + done, who.viewer,
        nonce(request), slug=job.assignment, refresh=2 if running else None,
    )
