"""`gradeformer grade FILE --show`: per question, the text located for it and where it was
found; per item, the points, status, confidence, staff feedback and the evidence the grader
used. What an instructor reads while writing a rubric, to see why an item got its points.

Everything shown comes from the student's bytes or quotes them: it is cleaned (no terminal
escapes, no bidirectional overrides) and printed as plain text, never as rich markup.
"""

from __future__ import annotations

import textwrap
from typing import Any

from rich.console import Console
from rich.text import Text

from app.points import as_number
from app.sanitize import clean
from graders.documents import LocatedAnswer, ParsedSubmission
from graders.results import Evidence, ItemResult
from graders.rubric import Rubric

ANSWER_CHARS = 1200
EVIDENCE_CHARS = 300
FEEDBACK_CHARS = 2000


def _trimmed(text: str, limit: int) -> str:
    return clean(text.strip(), limit)


def _lines(text: str, start: int | None, end: int | None) -> str | None:
    """'lines a-b' of the document's text for a character span, None without one."""
    if start is None or end is None:
        return None
    first = text.count("\n", 0, start) + 1
    last = text.count("\n", 0, max(start, end - 1)) + 1
    return f"line {first}" if first == last else f"lines {first}-{last}"


def where_found(answer: LocatedAnswer, parsed: ParsedSubmission) -> str:
    """How the answer was found and where: 'label "Question 1", lines 12-30 (confidence 0.95)'."""
    how = {
        "json": "JSON key",
        "label": "label",
        "content": "content (no label)",
        "order": "order of the blocks (no label or content)",
        "whole": "the whole file",
    }.get(answer.method, answer.method)
    if answer.label and answer.method in ("label", "json"):
        how += f" {clean(answer.label, 200)!r}"
    span = _lines(parsed.text, answer.start, answer.end)
    if span is not None:
        extracted = parsed.format in ("pdf", "notebook")
        how += f", {span}" + (" of the extracted text" if extracted else "")
    return f"{how} (confidence {answer.confidence:.2f})"


def _evidence_line(evidence: Evidence, parsed: ParsedSubmission | None) -> str:
    span = None if parsed is None else _lines(parsed.text, evidence.start, evidence.end)
    text = _trimmed(evidence.text, EVIDENCE_CHARS).replace("\n", " ⏎ ")
    line = f"{evidence.kind}: {text}"
    if span is not None:
        line += f" [{span}]"
    if evidence.note:
        line += f" — {_trimmed(evidence.note, EVIDENCE_CHARS)}"
    return line


def _repeats_answer(evidence: Evidence, answer: LocatedAnswer | None) -> bool:
    """The located answer quoted again as evidence: printed once above, under its question."""
    return (evidence.kind == "answer" and answer is not None
            and evidence.text.strip() in answer.text)


def _block(console: Console, text: str, indent: int, style: str = "", wrap: bool = True) -> None:
    """`text` under an indent, without trailing padding; wrapped to the console's width unless
    its own line breaks matter (a located answer: code, a derivation)."""
    width = max(40, console.width - indent)
    for paragraph in text.splitlines() or [""]:
        lines = textwrap.wrap(paragraph, width, break_on_hyphens=False) if wrap else [paragraph]
        for line in lines or [""]:
            console.print(Text(" " * indent + line, style=style), soft_wrap=True)


def print_shown(
    console: Console,
    title: str,
    rubric: Rubric,
    parsed: ParsedSubmission | None,
    items: tuple[ItemResult, ...],
) -> None:
    """Readable blocks, one per question: plain text on a pipe, bold headings on a terminal."""
    console.print(Text(title, style="bold"))
    by_item = {r.item_id: r for r in items}
    for question in rubric.questions:
        console.print()
        heading = f"{question.id}"
        if question.title:
            heading += f" — {clean(question.title, 200)}"
        console.print(Text(heading, style="bold"))
        answer = None if parsed is None else parsed.answers.get(question.id)
        if parsed is None or answer is None:
            reason = "" if parsed is None else parsed.missing.get(question.id, "")
            _block(console, "located: nothing" + (f" — {clean(reason, 500)}" if reason else ""),
                   2)
        else:
            _block(console, f"located by {where_found(answer, parsed)}", 2)
            if answer.note:
                _block(console, f"note: {_trimmed(answer.note, 500)}", 4, "dim")
            _block(console, _trimmed(answer.text, ANSWER_CHARS) or "(empty)", 4, "cyan",
                   wrap=False)
        for item in question.items:
            result = by_item.get(item.id)
            if result is None:
                _block(console, f"{item.id}: no result", 2)
                continue
            _block(
                console,
                f"{item.id}: {as_number(result.points)}/{as_number(result.max_points)} "
                f"{result.status.value} (confidence {result.confidence:.2f})",
                2, "bold",
            )
            if result.feedback.strip():
                _block(console, f"feedback: {_trimmed(result.feedback, FEEDBACK_CHARS)}", 4)
            for evidence in result.evidence:
                if _repeats_answer(evidence, answer):
                    continue
                _block(console, f"evidence {_evidence_line(evidence, parsed)}", 4, "dim")
    if parsed is not None:
        for note in parsed.notes:
            _block(console, f"note: {_trimmed(note, 500)}", 0, "dim")


def shown_json(parsed: ParsedSubmission | None, items: tuple[ItemResult, ...]) -> dict[str, Any]:
    """What --show adds to `--format json`: located answers and each item's evidence."""
    located: dict[str, Any] = {}
    if parsed is not None:
        for question_id, answer in parsed.answers.items():
            located[question_id] = {
                "method": answer.method,
                "label": None if answer.label is None else clean(answer.label, 200),
                "lines": _lines(parsed.text, answer.start, answer.end),
                "confidence": answer.confidence,
                "note": clean(answer.note, 500),
                "text": _trimmed(answer.text, ANSWER_CHARS),
            }
        for question_id, reason in parsed.missing.items():
            located.setdefault(question_id, {"method": None, "missing": clean(reason, 500)})
    return {
        "located": located,
        "evidence": {
            r.item_id: [_evidence_line(e, parsed) for e in r.evidence] for r in items
        },
    }
