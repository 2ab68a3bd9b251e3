"""The "Student sees:" preview on staff pages: exactly the text and points a student's own pages
show for an item now (app/submissions/preview.py), and what changes once the grades are
published."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy.orm import Session

from app.submissions.preview import StudentPreview, accepted_text, student_preview
from app.submissions.service import ScoredSubmission
from app.submissions.visibility import StudentItem, view_for
from app.web.markup import e, pts


def _points(item: StudentItem) -> str:
    if item.points is None:
        return "no points shown"
    return f"{pts(item.points)} / {pts(item.max_points)} points"


def preview_html(preview: StudentPreview, item_id: str) -> str:
    """The preview as a block of the page (text wraps inside it)."""
    now = preview.now
    later = ""
    if preview.changes_on_publication:
        later = (f"<p class='muted'>Once the grades are published: {_points(preview.published)}"
                 f" · “{e(preview.published.feedback)}”</p>")
    return (
        f"<div class='student-sees' data-item='{e(item_id)}'><p><b>Student sees:</b> "
        f"{_points(now)} · “<span class='said'>{e(now.feedback)}</span>”</p>{later}</div>"
    )


def item_preview(session: Session, s: ScoredSubmission, item_id: str, now: datetime) -> str:
    """The preview of one item of a scored submission ("" for an item it does not have)."""
    item = next((i for i in s.score.items if i.item_id == item_id), None)
    if item is None:
        return ""
    view = view_for(session, s, now)
    return preview_html(student_preview(item, view, s.submission.handout is not None), item_id)


def accept_preview(s: ScoredSubmission, item_id: str) -> str:
    """On the review page: what the student reads, once released, if the suggestion is
    accepted without a comment."""
    if s.run is None:
        return ""
    score = next((i for i in s.run.items if i.item_id == item_id), None)
    if score is None:
        return ""
    return (f"<p class='muted student-sees'>After <i>Accept</i> (no comment), once released: "
            f"“{e(accepted_text(score, score.points))}”</p>")
