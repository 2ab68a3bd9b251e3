"""`gradeformer grade FILE --show`: per question, the text located for it and where it was
found; per item, the points, status, confidence, staff feedback and the evidence the grader
used. What an instructor reads while writing a rubric, to see why an item got its points.

Everything shown comes from the student's bytes or quotes them: it is cleaned (no terminal
escapes, no bidirectional overrides) and printed as plain text, never as rich markup.
"""

from __future__ import annotations

import json
import textwrap
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from app.points import as_number
from app.sanitize import clean
from graders.documents import LocatedAnswer, ParsedSubmission
from graders.results import Evidence, ItemResult
from graders.rubric import Rubric

if TYPE_CHECKING:  # rich is imported when the shown text is printed (not for --format json)
    from rich.console import Console

ANSWER_CHARS = 1200
EVIDENCE_CHARS = 300
FEEDBACK_CHARS = 2000


def _trimmed(text: str, limit: int) -> str:
    return clean(text.strip(), limit)


def _cell_spans(raw: bytes, text: str) -> tuple[tuple[int, int, int], ...] | None:
    """(start, end, cell number) of each notebook cell in the text read from it, when the text
    is the cells' sources joined as the reader joins them (else None: lines are shown)."""
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError):
        return None
    cells = data.get("cells") if isinstance(data, dict) else None
    if not isinstance(cells, list):
        return None
    spans: list[tuple[int, int, int]] = []
    blocks: list[str] = []
    offset = 0
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            return None
        source = cell.get("source", "")
        source = "".join(map(str, source)) if isinstance(source, list) else str(source)
        kind = cell.get("cell_type")
        if not source.strip() or kind not in ("code", "markdown"):
            continue
        block = f"```python\n{source.rstrip()}\n```" if kind == "code" else source.rstrip()
        offset += 2 if blocks else 0
        spans.append((offset, offset + len(block), number))
        blocks.append(block)
        offset += len(block)
    return tuple(spans) if "\n\n".join(blocks) == text else None


@dataclass(frozen=True)
class Places:
    """Where a character span of the submission's text lies, said in the student's terms:
    notebook cells, else lines (of the text extracted from a PDF)."""

    text: str
    extracted: bool = False
    cells: tuple[tuple[int, int, int], ...] | None = None

    @classmethod
    def of(cls, parsed: ParsedSubmission, raw: bytes) -> Places:
        cells = _cell_spans(raw, parsed.text) if parsed.format == "notebook" else None
        return cls(parsed.text, parsed.format in ("pdf", "notebook"), cells)

    def where(self, start: int | None, end: int | None) -> str | None:
        if start is None or end is None:
            return None
        last_char = max(start, end - 1)
        if self.cells is not None:
            first = next((n for s, e, n in self.cells if start < e), None)
            last = next((n for s, e, n in reversed(self.cells) if last_char >= s), None)
            if first is not None and last is not None:
                return f"cell {first}" if first >= last else f"cells {first}-{last}"
        first = self.text.count("\n", 0, start) + 1
        last = self.text.count("\n", 0, last_char) + 1
        span = f"line {first}" if first == last else f"lines {first}-{last}"
        return span + (" of the extracted text" if self.extracted else "")


def where_found(answer: LocatedAnswer, places: Places) -> str:
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
    span = places.where(answer.start, answer.end)
    if span is not None:
        how += f", {span}"
    return f"{how} (confidence {answer.confidence:.2f})"


def _evidence_line(evidence: Evidence, places: Places | None) -> str:
    span = None if places is None else places.where(evidence.start, evidence.end)
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
    from rich.text import Text

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
    raw: bytes,
    items: tuple[ItemResult, ...],
) -> None:
    """Readable blocks, one per question: plain text on a pipe, bold headings on a terminal."""
    from rich.text import Text

    places = None if parsed is None else Places.of(parsed, raw)
    console.print(Text(title, style="bold"))
    by_item = {r.item_id: r for r in items}
    for question in rubric.questions:
        console.print()
        heading = f"{question.id}"
        if question.title:
            heading += f" — {clean(question.title, 200)}"
        console.print(Text(heading, style="bold"))
        answer = None if parsed is None else parsed.answers.get(question.id)
        if parsed is None or places is None or answer is None:
            reason = "" if parsed is None else parsed.missing.get(question.id, "")
            _block(console, "located: nothing" + (f" — {clean(reason, 500)}" if reason else ""),
                   2)
        else:
            _block(console, f"located by {where_found(answer, places)}", 2)
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
                _block(console, f"evidence {_evidence_line(evidence, places)}", 4, "dim")
    if parsed is not None:
        for note in parsed.notes:
            _block(console, f"note: {_trimmed(note, 500)}", 0, "dim")


def shown_json(
    parsed: ParsedSubmission | None, raw: bytes, items: tuple[ItemResult, ...]
) -> dict[str, Any]:
    """What --show adds to `--format json`: located answers and each item's evidence."""
    located: dict[str, Any] = {}
    places = None if parsed is None else Places.of(parsed, raw)
    if parsed is not None and places is not None:
        for question_id, answer in parsed.answers.items():
            located[question_id] = {
                "method": answer.method,
                "label": None if answer.label is None else clean(answer.label, 200),
                "where": places.where(answer.start, answer.end),
                "confidence": answer.confidence,
                "note": clean(answer.note, 500),
                "text": _trimmed(answer.text, ANSWER_CHARS),
            }
        for question_id, reason in parsed.missing.items():
            located.setdefault(question_id, {"method": None, "missing": clean(reason, 500)})
    return {
        "located": located,
        "evidence": {
            r.item_id: [_evidence_line(e, places) for e in r.evidence] for r in items
        },
    }
