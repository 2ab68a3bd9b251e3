"""The answer-groups pages' bodies, shown in the web app's layout (app/web/markup.py: shared nav,
stylesheet and the one script, whose keyboard shortcuts cover these pages): every student string
through `e` (html.escape), the session's CSRF token in every form."""

from __future__ import annotations

from collections import Counter
from decimal import Decimal
from urllib.parse import quote

from app.groups.service import AnswerGroup, ItemGroups, Member
from app.web.markup import e as esc


def points(value: Decimal) -> str:
    return format(value.normalize(), "f")


def _base(slug: str) -> str:
    return f"/assignments/{quote(slug, safe='')}/groups"


def _nav(found: ItemGroups) -> str:
    links = []
    for item_id, pending in found.pending_by_item.items():
        cls = "pending" if pending else "muted"
        label = f"{item_id} ({pending})" if pending else item_id
        current = ' aria-current="page"' if item_id == found.item_id else ""
        links.append(f'<a class="{cls}" href="{_base(found.slug)}/{quote(item_id, safe="")}"'
                     f"{current}>{esc(label)}</a>")
    return f'<nav class="items" aria-label="Rubric items">{" ".join(links)}</nav>'


SHARED = {
    "value": "Same value",
    "expression": "Same expression",
    "behaviour": "Same verdicts on the tests",
}


def _shared(group: AnswerGroup) -> str:
    """What makes the group one: the value or verdicts; for texts, how they were compared (the
    representative answer already shows the text)."""
    if group.method in SHARED:
        return f"{SHARED[group.method]}: <code>{esc(group.signature)}</code>"
    if group.method == "similar":
        return "Near-identical texts (sentence embeddings), the first shown"
    if group.method == "missing":
        return "No answer"
    return "Same text once case, punctuation and spacing are ignored"


def _suggestions(group: AnswerGroup) -> str:
    return ", ".join(f"{points(p)} × {n}" for p, n in group.suggestions)


def _member_row(slug: str, item_id: str, group_id: str, m: Member, csrf: str,
                by: str = "") -> str:
    state = "needs review" if m.needs_review else m.machine_status.replace("_", " ")
    decided = (f'<span class="done">{esc(points(m.points))} decided'
               f'{" by " + esc(by) if by else ""}</span>' if m.decided else "")
    comment = f'<div class="muted"><q>{esc(m.said)}</q></div>' if m.said else ""
    if m.disputed:
        comment += f'<div class="flag">⚑ {esc(m.disputed)}</div>'
    action = f"{_base(slug)}/{quote(item_id, safe='')}/member"
    flagged = ' class="disputed"' if m.disputed else ""
    return (
        f'<tr data-submission="{m.submission_id}"{flagged}><td><label><input type="checkbox" '
        f'name="exclude" value="{m.submission_id}" form="decide-{group_id}"> exclude</label></td>'
        f"<td>{esc(m.student or '—')}<div class=\"muted\">#{m.submission_id}</div></td>"
        f"<td>{esc(points(m.suggested_points))} <span class=\"muted\">({esc(state)}, "
        f"{m.confidence:.2f})</span>{decided}{comment}</td>"
        f'<td class="answer">{esc(m.answer)}</td>'
        f'<td><form method="post" action="{action}">'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
        f'<input type="hidden" name="submission_id" value="{m.submission_id}">'
        f'<input type="hidden" name="group" value="{group_id}">'
        f'<input type="number" name="points" step="0.01" min="0" required '
        f'aria-label="Points for submission {m.submission_id}">'
        f'<input name="comment" placeholder="comment" maxlength="5000" size="10">'
        f"<button type=\"submit\">Override</button></form></td></tr>"
    )


def _decisions(g: AnswerGroup, deciders: dict[int, str]) -> str:
    """The group's decided members, as points, who decided and the text the student reads
    once released (most common first)."""
    seen = Counter((m.points, m.said or "", deciders.get(m.submission_id, "?"))
                   for m in g.members if m.decided)
    if not seen:
        return ""
    lines = "".join(
        f"<li>Decided: <b>{esc(points(p))}</b> points for {n} answer{'s' if n != 1 else ''}, "
        f"by {esc(by)}"
        + (f": <q>{esc(comment[:300])}</q>" if comment else "") + "</li>"
        for (p, comment, by), n in seen.most_common(5)
    )
    more = f"<li>… and {len(seen) - 5} other decisions</li>" if len(seen) > 5 else ""
    return (f'<ul class="decisions" aria-label="Decisions">{lines}{more}</ul>'
            "<p class='muted'>Quoted: what the student reads once the grades are released.</p>")


def _group(found: ItemGroups, n: int, g: AnswerGroup, csrf: str,
           deciders: dict[int, str]) -> str:
    status = (f'<span class="badge">{g.needs_review} need review</span>' if g.needs_review
              else '<span class="done">nothing to review</span>')
    action = f"{_base(found.slug)}/{quote(found.item_id, safe='')}/decide"
    rows = "".join(_member_row(found.slug, found.item_id, g.id, m, csrf,
                               deciders.get(m.submission_id, "")) for m in g.members)
    disputed = sum(bool(m.disputed) for m in g.members)
    confirm = (
        f'<p class="flag">⚑ {disputed} member{"s" if disputed != 1 else ""} of this group '
        "the machine judged otherwise (see Members). Points for the group that are more than "
        "their own suggestion leave them undecided unless you tick "
        f'<label><input type="checkbox" name="confirm_disputed" value="yes" '
        f'form="decide-{g.id}"> give them these points too</label>.</p>'
    ) if disputed else ""
    return (
        f'<section class="group" id="group-{g.id}" data-group="{g.id}" tabindex="-1" '
        f'aria-label="Group {n}">'
        f"<header><h2>Group {n}: {g.size} answer{'s' if g.size != 1 else ''}</h2>{status}"
        f'<span class="muted">{g.decided} decided · by {esc(g.method)}</span></header>'
        f'<p class="muted">{_shared(g)}</p>'
        f'{_decisions(g, deciders)}<pre class="answer">{esc(g.representative)}</pre>'
        f"<p>Machine suggestions: {esc(_suggestions(g))} (of {points(found.max_points)})</p>"
        f'<form class="decide" method="post" action="{action}" id="decide-{g.id}">'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
        f'<input type="hidden" name="group" value="{g.id}">'
        # Enter in the points box submits with the form's first button: "set", not "accept".
        f'<label>Points <input type="number" name="points" step="0.01" min="0" '
        f'max="{points(found.max_points)}"></label>'
        f'<label>Comment <input name="comment" maxlength="5000" size="30"></label>'
        f'<button type="submit" name="action" value="set" class="set">Set points for group'
        f" <kbd>s</kbd></button>"
        f'<button type="submit" name="action" value="accept" class="accept">'
        f"Accept suggestion <kbd>a</kbd></button></form>{confirm}"
        f"<details{' open' if disputed else ''}><summary>Members ({g.size}); tick to exclude "
        "from the group decision"
        f"</summary><table><thead><tr><th></th><th>Student</th><th>Machine</th><th>Answer</th>"
        f"<th>Override one</th></tr></thead><tbody>{rows}</tbody></table></details></section>"
    )


def item_title(found: ItemGroups) -> str:
    return f"Answer groups: {found.item_id} · {found.title}"


def _undo(found: ItemGroups, csrf: str, audit_id: int | None, group: str) -> str:
    if audit_id is None:
        return ""
    action = f"{_base(found.slug)}/{quote(found.item_id, safe='')}/undo"
    return (f'<form method="post" action="{action}" id="undo-form" class="inline">'
            f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
            f'<input type="hidden" name="audit_id" value="{audit_id}">'
            f'<input type="hidden" name="group" value="{esc(group)}">'
            '<button type="submit" id="undo">Undo <kbd>u</kbd></button></form>')


def item_page(found: ItemGroups, csrf: str, flash: str = "",
              deciders: dict[int, str] | None = None, undo: int | None = None,
              group: str = "") -> str:
    """The body of one item's page (the layout adds the title as its heading); `deciders`:
    submission -> who decided its answer; `undo`: the audit id of the group decision just
    made (the flash offers its undo)."""
    groups = "".join(_group(found, n, g, csrf, deciders or {})
                     for n, g in enumerate(found.groups, start=1))
    total = sum(g.size for g in found.groups)
    note = f" Written answers compared by {esc(found.similarity)}." if (
        found.learns_from_overrides) else ""
    if found.learns_from_overrides:
        active = (f"/assignments/{quote(found.slug, safe='')}/active/"
                  f"{quote(found.item_id, safe='')}")
        note += f' <a href="{active}" id="active-link">Grade this item actively</a>.'

    return (
        f"{_nav(found)}"
        f'<p class="summary"><span id="needs-review">{found.needs_review}</span> answers need '
        f"review · {len(found.groups)} groups of {total} counted answers · "
        f"{esc(found.grader)} item worth {points(found.max_points)}.{note} Keys: <kbd>j</kbd>/"
        f"<kbd>k</kbd> next/previous group, <kbd>a</kbd> accept, <kbd>s</kbd> set points, "
        f"<kbd>m</kbd> members, <kbd>u</kbd> undo the group decision just made.</p>"
        + (f'<div class="flash" role="status"><p>{esc(flash)}</p>'
           f"{_undo(found, csrf, undo, group)}</div>" if flash else "")
        + (groups or "<p>No answers to this item yet.</p>")
    )


def index_page(slug: str, pending: dict[str, int], titles: dict[str, str]) -> str:
    """The body of the assignment's page listing its items."""
    rows = "".join(
        f'<tr><td><a class="{"pending" if n else "muted"}" '
        f'href="{_base(slug)}/{quote(item_id, safe="")}">{esc(item_id)}</a></td>'
        f"<td>{esc(titles.get(item_id, ''))}</td><td>{n}</td></tr>"
        for item_id, n in pending.items()
    )
    left = sum(pending.values())
    return (
        f'<p class="summary"><span id="needs-review">{left}</span> counted answers need review.'
        f"</p><table><thead><tr><th>Item</th><th>Title</th><th>Need review</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )
