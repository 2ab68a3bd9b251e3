"""The handout edition graded, on an assignment's settings page (course staff): the edition
fixed for everyone, each student's, the warning while each submission's declaration decides,
and the forms that set them (the same service as the API and `gradeformer edition`). A change
that moves stored submissions starts the assignment's regrade and goes to its progress page."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Form, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.orm import Session

from app.auth.service import Identity
from app.db.session import unit_of_work
from app.editions import service
from app.errors import InvalidInput
from app.regrade.runner import RegradeRunner
from app.web.auth import Signed, nonce, staff_post
from app.web.markup import Viewer, e, hidden, layout, table
from app.web.routing import PageRoute

router = APIRouter(tags=["web"], route_class=PageRoute)
Field = Annotated[str, Form(max_length=200)]


def _choice(handouts: list[str], chosen: str | None, name: str, field_id: str) -> str:
    options = "".join(
        f'<option value="{e(h)}"{" selected" if h == chosen else ""}>{e(h)}</option>'
        for h in handouts)
    return (f'<select name="{name}" id="{field_id}"><option value="">not set (the declaration '
            f"counts)</option>{options}</select>")


def editions_section(session: Session, slug: str, viewer: Viewer) -> str:
    """The section's markup; empty when the rubric grades no editions."""
    found = service.editions_of(session, slug)
    if not found.handouts:
        return ""
    action = f"/assignments/{e(slug)}/settings/edition"
    warning = (f'<p class="warning" id="edition-warning" role="alert">Editions: '
               f"{e(found.warning)}</p>" if found.warning else "")
    rows = [[e(s.student), e(s.handout)] for s in found.students]
    students = (table(["student", "edition"], rows, "editions") if rows else
                "<p class='muted'>No student has an edition of their own.</p>")
    return (
        "<h2>Handout editions</h2>" + warning
        + "<p>The edition set here is the one graded; a student's upload that declares another "
        "is graded under it all the same, and its submission shows staff what it declared.</p>"
        f'<form method="post" action="{action}" class="edition">{hidden("csrf", viewer.csrf)}'
        "<p><label>Everyone without an edition of their own "
        f'{_choice(found.handouts, found.fixed, "handout", "assignment-edition")}</label> '
        '<button type="submit" id="save-assignment-edition">Save</button></p></form>'
        + students
        + f'<form method="post" action="{action}" class="edition">{hidden("csrf", viewer.csrf)}'
        '<p><label>Student id <input type="text" name="student" id="edition-student" '
        'maxlength="200" required></label> '
        f'<label>edition {_choice(found.handouts, None, "handout", "student-edition")}</label> '
        '<button type="submit" id="save-student-edition">Save</button></p></form>'
    )


@router.post("/assignments/{slug}/settings/edition", include_in_schema=False)
def save_edition(slug: str, request: Request, csrf: Field = "", student: Field = "",
                 handout: Field = "") -> Response:
    """Set (an empty `handout`: clear) the assignment's edition, or a student's when `student`
    is given; a refusal is shown with status 422 and nothing changed."""
    with unit_of_work(request.app.state.read_sessions) as session:
        who = staff_post(request, session, csrf)
        if not isinstance(who, Signed):
            return who
        # The regrade runs on the runner's threads, after this session has closed.
        user, viewer = who.user, who.viewer
        user = Identity(user.id, user.name, user.role, user.created_at).user()
    try:
        with unit_of_work(request.app.state.sessions) as session:
            change = service.set_edition(session, slug, student.strip() or None,
                                         handout or None, user)
    except InvalidInput as exc:
        body = (f'<p class="error" role="alert">Not saved: {e(exc.detail)}</p>'
                f'<p><a href="/assignments/{e(slug)}/settings">Back to the settings</a></p>')
        return layout(f"Settings: {slug}", body, viewer, nonce(request), slug=slug, status=422)
    if not change.resubmitted:
        return RedirectResponse(f"/assignments/{slug}/settings?saved=edition", status_code=303)
    runner: RegradeRunner = request.app.state.regrades
    job_id = runner.running_job(change.assignment) or runner.start(change.assignment, user)
    return RedirectResponse(f"/regrades/{job_id}", status_code=303)
