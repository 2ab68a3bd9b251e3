"""Document bombs against the ninth round's readers of hidden text: LaTeX of 1 MB of one unit
(`\\iftrue\\else`, a macro that drops its argument defined and called over and over, colours
defined white, `\\scalebox{0}{`), Markdown of link targets, tag attributes and unclosed
`<script>`s. (A PDF whose path is many clipping rectangles, quadratic before, is timed in
process by tests/graders/documents/test_pdf_layers_and_clips.py: served, its read time follows
the host's load.) Each is taken or refused 4xx, /healthz answers within a second while they
are read, and whatever is taken is graded without a grader_error."""

from __future__ import annotations

import json

from tests.attacks.conftest import Served
from tests.attacks.test_document_bombs import upload_at_once
from tests.attacks.test_document_bombs_deep import until_final
from tests.support.pace import stretched

MEGABYTE = 1_000_000


def _repeated(unit: bytes, head: bytes = b"B1: d_head = 64\n") -> bytes:
    return head + unit * (MEGABYTE // len(unit))


def _bombs() -> dict[str, tuple[str, bytes, str]]:
    return {
        "LaTeX iftrue else": ("a.tex", _repeated(b"\\iftrue\\else "), "application/x-tex"),
        "LaTeX dropping macros": ("a.tex", _repeated(b"\\newcommand{\\h}[1]{}\\h{"),
                                  "application/x-tex"),
        "LaTeX white colours": ("a.tex", _repeated(b"\\definecolor{a}{rgb}{1,1,1}\\color{a}"),
                                "application/x-tex"),
        "LaTeX zero scales": ("a.tex", _repeated(b"\\scalebox{0}{"), "application/x-tex"),
        "Markdown link titles": ("a.md", _repeated(b'[a](x "'), "text/markdown"),
        "Markdown attributes": ("a.md", _repeated(b'<a title="x">'), "text/markdown"),
        "Markdown scripts": ("a.md", _repeated(b"<script>"), "text/markdown"),
    }


def test_hidden_text_bombs_are_answered_graded_and_healthz_stays_fast(served: Served) -> None:
    _graded_beside_a_fast_healthz(served, _bombs(), "hidden")


def _graded_beside_a_fast_healthz(served: Served, bombs: dict[str, tuple[str, bytes, str]],
                                  prefix: str) -> dict[str, tuple[int, str]]:
    limit = stretched(1.0)
    answers, slowest = upload_at_once(served, bombs, prefix)
    broken = {}
    for name, (status, text) in answers.items():
        if status != 202:
            continue
        final = until_final(served, json.loads(text)["id"], seconds=300)
        errors = [i["id"] for i in final["items"]  # type: ignore[attr-defined]
                  if i["status"] == "grader_error"]
        if final["status"] in ("queued", "grading", "grader_error") or errors:
            broken[name] = (final["status"], errors)
    assert not broken, broken
    assert slowest < limit, (slowest, limit)
    return answers
