"""The answer-groups pages as HTML: self-contained (inline style, one inline script carrying the
response's CSP nonce), every student string through html.escape, a CSRF token in every form."""

from __future__ import annotations

import html
from decimal import Decimal
from urllib.parse import quote

from app.groups.service import AnswerGroup, ItemGroups, Member

STYLE = """
body{font-family:system-ui,sans-serif;margin:1.5rem auto;max-width:70rem;color:#1d232b}
h1{font-size:1.4rem;margin:0 0 .3rem} h2{font-size:1.05rem;margin:0}
nav a{margin-right:.6rem;white-space:nowrap} nav .pending{font-weight:600}
.summary{color:#4a5563;margin:.2rem 0 1rem}
.group{border:1px solid #c9d1db;border-radius:6px;padding:.8rem 1rem;margin:.8rem 0}
.group:focus,.group.current{outline:3px solid #2f6fde;outline-offset:2px}
.group header{display:flex;gap:.8rem;align-items:baseline;flex-wrap:wrap}
.badge{background:#fde9c8;color:#6b3d00;border-radius:4px;padding:0 .4rem}
.done{background:#d9f2df;color:#15542a;border-radius:4px;padding:0 .4rem}
.muted{color:#5b6675} code{background:#f1f4f8;padding:0 .2rem}
pre.answer{background:#f6f8fa;border-left:3px solid #9fb3c8;padding:.5rem;white-space:pre-wrap;
 max-height:14rem;overflow:auto;margin:.5rem 0}
form.decide{display:flex;gap:.5rem;align-items:center;flex-wrap:wrap}
input[type=number]{width:5.5rem} table{border-collapse:collapse;width:100%;font-size:.9rem}
td,th{border-top:1px solid #e3e8ee;padding:.25rem .4rem;text-align:left;vertical-align:top}
td.answer{max-width:28rem;white-space:pre-wrap;word-break:break-word}
.flash{background:#e6f0ff;border:1px solid #b5ccf5;padding:.4rem .7rem;border-radius:4px}
kbd{border:1px solid #b8c2cc;border-radius:3px;padding:0 .25rem;font-size:.85em}
"""

SCRIPT = """
(function(){
  var groups = Array.prototype.slice.call(document.querySelectorAll('section.group'));
  var at = 0;
  function show(i){
    if(!groups.length) return;
    at = Math.max(0, Math.min(groups.length - 1, i));
    groups.forEach(function(g){ g.classList.remove('current'); });
    groups[at].classList.add('current');
    groups[at].focus({preventScroll: true});
    groups[at].scrollIntoView({block: 'nearest'});
  }
  document.addEventListener('keydown', function(e){
    var t = e.target, tag = t && t.tagName;
    if(tag === 'INPUT' || tag === 'TEXTAREA' || e.ctrlKey || e.metaKey || e.altKey) return;
    var g = groups[at];
    if(e.key === 'j'){ show(at + 1); }
    else if(e.key === 'k'){ show(at - 1); }
    else if(e.key === 'a' && g){ g.querySelector('button.accept').click(); }
    else if(e.key === 's' && g){ g.querySelector('form.decide input[name=points]').focus(); }
    else if(e.key === 'm' && g){ var d = g.querySelector('details'); d.open = !d.open; }
    else { return; }
    e.preventDefault();
  });
  groups.forEach(function(g, i){ g.addEventListener('click', function(){ show(i); }); });
  show(0);
})();
"""


def esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def points(value: Decimal) -> str:
    return format(value.normalize(), "f")


def _page(title: str, body: str, nonce: str) -> str:
    return (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{esc(title)}</title>'
        f"<style>{STYLE}</style></head><body>{body}"
        f'<script nonce="{esc(nonce)}">{SCRIPT}</script></body></html>'
    )


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
    return f'<nav aria-label="Rubric items">{" ".join(links)}</nav>'


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


def _member_row(slug: str, item_id: str, group_id: str, m: Member, csrf: str) -> str:
    state = "needs review" if m.needs_review else m.machine_status.replace("_", " ")
    decided = f'<span class="done">{esc(points(m.points))} decided</span>' if m.decided else ""
    comment = f'<div class="muted">{esc(m.comment)}</div>' if m.comment else ""
    action = f"{_base(slug)}/{quote(item_id, safe='')}/member"
    return (
        f'<tr data-submission="{m.submission_id}"><td><label><input type="checkbox" '
        f'name="exclude" value="{m.submission_id}" form="decide-{group_id}"> exclude</label></td>'
        f"<td>{esc(m.student or '—')}<div class=\"muted\">#{m.submission_id}</div></td>"
        f"<td>{esc(points(m.suggested_points))} <span class=\"muted\">({esc(state)}, "
        f"{m.confidence:.2f})</span>{decided}{comment}</td>"
        f'<td class="answer">{esc(m.answer)}</td>'
        f'<td><form method="post" action="{action}">'
        f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
        f'<input type="hidden" name="submission_id" value="{m.submission_id}">'
        f'<input type="number" name="points" step="0.01" min="0" required '
        f'aria-label="Points for submission {m.submission_id}">'
        f'<input name="comment" placeholder="comment" maxlength="5000" size="10">'
        f"<button type=\"submit\">Override</button></form></td></tr>"
    )


def _group(found: ItemGroups, n: int, g: AnswerGroup, csrf: str) -> str:
    status = (f'<span class="badge">{g.needs_review} need review</span>' if g.needs_review
              else '<span class="done">nothing to review</span>')
    action = f"{_base(found.slug)}/{quote(found.item_id, safe='')}/decide"
    rows = "".join(_member_row(found.slug, found.item_id, g.id, m, csrf) for m in g.members)
    return (
        f'<section class="group" id="group-{g.id}" data-group="{g.id}" tabindex="-1" '
        f'aria-label="Group {n}">'
        f"<header><h2>Group {n}: {g.size} answer{'s' if g.size != 1 else ''}</h2>{status}"
        f'<span class="muted">{g.decided} decided · by {esc(g.method)}</span></header>'
        f'<p class="muted">{_shared(g)}</p>'
        f'<pre class="answer">{esc(g.representative)}</pre>'
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
        f"Accept suggestion <kbd>a</kbd></button></form>"
        f"<details><summary>Members ({g.size}); tick to exclude from the group decision"
        f"</summary><table><thead><tr><th></th><th>Student</th><th>Machine</th><th>Answer</th>"
        f"<th>Override one</th></tr></thead><tbody>{rows}</tbody></table></details></section>"
    )


def item_page(found: ItemGroups, csrf: str, nonce: str, flash: str = "") -> str:
    groups = "".join(_group(found, n, g, csrf) for n, g in enumerate(found.groups, start=1))
    total = sum(g.size for g in found.groups)
    note = f" Written answers compared by {esc(found.similarity)}." if (
        found.grader == "written") else ""
    body = (
        f"{_nav(found)}<h1>Answer groups: {esc(found.item_id)} · {esc(found.title)}</h1>"
        f'<p class="summary"><span id="needs-review">{found.needs_review}</span> answers need '
        f"review · {len(found.groups)} groups of {total} counted answers · "
        f"{esc(found.grader)} item worth {points(found.max_points)}.{note} Keys: <kbd>j</kbd>/"
        f"<kbd>k</kbd> next/previous group, <kbd>a</kbd> accept, <kbd>s</kbd> set points, "
        f"<kbd>m</kbd> members.</p>"
        + (f'<p class="flash" role="status">{esc(flash)}</p>' if flash else "")
        + (groups or "<p>No answers to this item yet.</p>")
    )
    return _page(f"{found.item_id}: answer groups", body, nonce)


def index_page(slug: str, pending: dict[str, int], titles: dict[str, str], nonce: str) -> str:
    rows = "".join(
        f'<tr><td><a class="{"pending" if n else "muted"}" '
        f'href="{_base(slug)}/{quote(item_id, safe="")}">{esc(item_id)}</a></td>'
        f"<td>{esc(titles.get(item_id, ''))}</td><td>{n}</td></tr>"
        for item_id, n in pending.items()
    )
    left = sum(pending.values())
    body = (
        f"<h1>Answer groups: {esc(slug)}</h1>"
        f'<p class="summary"><span id="needs-review">{left}</span> counted answers need review.'
        f"</p><table><thead><tr><th>Item</th><th>Title</th><th>Need review</th></tr></thead>"
        f"<tbody>{rows}</tbody></table>"
    )
    return _page(f"{slug}: answer groups", body, nonce)
