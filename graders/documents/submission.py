"""From uploaded bytes to a ParsedSubmission: one located answer (or a reason) per question."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from typing import Any

from graders.documents.edition import resolve_declared, set_aside
from graders.documents.formats import decode_document
from graders.documents.model import DocumentFormat, LocatedAnswer, ParsedSubmission
from graders.documents.strength import WHOLE_FILE, assignment_doubt, weak, with_doubt
from graders.rubric_model import Question, Rubric, RubricItem


def sniff_format(raw: bytes, filename: str | None, content_type: str | None) -> DocumentFormat:
    """The upload's format, or InvalidDocument with a one-line reason."""
    return decode_document(raw, filename, content_type).format


def sniff_document(
    raw: bytes, filename: str | None, content_type: str | None, light_only: bool = False
) -> tuple[DocumentFormat, str | None]:
    """The upload's format and the handout edition it declares itself (JSON `handout`, a
    notebook's metadata), or InvalidDocument with a one-line reason (NeedsReader with
    `light_only` for a PDF or notebook: see decode_document)."""
    document = decode_document(raw, filename, content_type, light_only=light_only)
    return document.format, document.handout


def read_submission(
    raw: bytes, filename: str | None, content_type: str | None, rubric: Rubric,
    handout: str | None = None,
) -> ParsedSubmission:
    """`handout`: the edition declared with the upload (graders.documents.edition); the
    document may declare it too. A question the declared edition does not ask gets no answer,
    whatever the document holds there."""
    document = decode_document(raw, filename, content_type)
    edition, edition_note = resolve_declared(rubric, handout, document.handout)
    if document.format == "json":
        parsed = _from_json(document.text, document.data, rubric)
        answers, missing, notes = dict(parsed.answers), dict(parsed.missing), list(parsed.notes)
        doubt, unsure = "", {}
    else:
        # The locator (its label and title patterns) is imported by the first document that
        # needs it: a JSON upload names its answers (`gradeformer grade FILE.json` starts without).
        from graders.documents.locate import locate

        location = locate(document.text, rubric, cells=document.cells, handout=edition)
        answers = dict(location.answers)
        missing = dict(location.missing)
        notes = list(location.notes)
        if document.format == "python":
            _whole_file_for_code(document.text, rubric, answers, missing, notes)
            _comment_answers(document.text, rubric, answers, missing)
        unsure = {qid: why for qid, why in location.unsure.items() if qid in missing}
    if edition is not None:
        set_aside(rubric, edition, answers, missing)
    if edition_note:
        notes.append(edition_note)
    if document.format != "json":
        doubt = assignment_doubt(rubric, answers, code_only=document.format == "python",
                                 handout=edition)
        if doubt:
            notes.append(doubt)
    student = document.data.get("student_id") if document.format == "json" else None
    return ParsedSubmission(
        text=document.text,
        format=document.format,
        answers=with_doubt(answers, doubt),
        student_id=student if isinstance(student, str) else None,
        missing=missing,
        unsure=unsure,
        notes=tuple(notes),
        doubt=doubt,
        handout=edition,
    )


def render_value(value: Any) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(render_value(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def _from_json(text: str, data: dict[str, Any], rubric: Rubric) -> ParsedSubmission:
    questions = {q.id.lower(): q for q in rubric.questions}
    items: dict[str, tuple[Question, RubricItem]] = {
        item.id.lower(): (q, item) for q in rubric.questions for item in q.items
    }
    whole: dict[str, str] = {}
    parts: dict[str, dict[str, str]] = {}
    notes: list[str] = []
    keys: dict[str, str] = {}  # question or item id -> the key that answered it first
    twice: dict[str, list[str]] = {}  # question id -> why its answer is in doubt
    for key, value in data["answers"].items():
        lowered = key.strip().lower()
        if lowered in questions:
            question = questions[lowered]
            _once(whole, question.id, question.id, key, render_value(value), keys, twice)
            continue
        hit = items.get(lowered)
        if hit is None and "." in lowered:
            # "B1.d_head": a question prefix in front of the item's own name
            prefix, _, rest = lowered.partition(".")
            hit = items.get(rest) or items.get(f"{prefix}.{rest}")
            if hit is None and prefix in questions:
                hit = next(((questions[prefix], i) for i in questions[prefix].items
                            if i.id.lower().split(".", 1)[-1] == rest), None)
        if hit is None:
            notes.append(f"ignored answers[{key!r}]: no question or item has that id")
            continue
        question, item = hit
        _once(parts.setdefault(question.id, {}), item.id, question.id, key, render_value(value),
              keys, twice)
    answers: dict[str, LocatedAnswer] = {}
    missing: dict[str, str] = {}
    for question in rubric.questions:
        own = whole.get(question.id)
        item_parts = parts.get(question.id, {})
        if own is None and not item_parts:
            missing[question.id] = f"The JSON answers have no key {question.id!r} or its items."
            continue
        lines = [own] if own is not None else []
        if any(item.grader == "code" for item in question.items):
            # A program keyed by a code item's id is code, each once: an "item: " prefix
            # made its first line (`import numpy as np`) prose, dropped before running.
            lines.extend(dict.fromkeys(v for v in item_parts.values() if v not in lines))
        else:
            lines.extend(f"{item_id}: {value}" for item_id, value in item_parts.items())
        answer = LocatedAnswer(
            question_id=question.id,
            text="\n".join(lines),
            confidence=1.0,
            method="json",
            label=question.id,
            parts=dict(item_parts),
        )
        doubts = twice.get(question.id)
        answers[question.id] = weak(answer, "; ".join(doubts)) if doubts else answer
    student = data.get("student_id")
    return ParsedSubmission(
        text=text,
        format="json",
        answers=answers,
        student_id=student if isinstance(student, str) else None,
        missing=missing,
        notes=tuple(notes),
    )


def _once(answered: dict[str, str], target: str, question: str, key: str, value: str,
          keys: dict[str, str], twice: dict[str, list[str]]) -> None:
    """`value` as `target`'s answer, unless another key answered it first: the same value again
    is one answer; a different one is two answers to one question or item (`{"B1.d_head": 64,
    "b1.D_HEAD": 12}`), and which one the student meant is for a person to say: the first is
    graded as the suggestion and the question goes to review."""
    if target not in answered:
        answered[target], keys[target] = value, key
    elif answered[target] != value:
        twice.setdefault(question, []).append(
            f"two JSON keys answer {target} differently ({keys[target][:40]!r}, graded, and "
            f"{key[:40]!r})")


def _whole_file_for_code(
    text: str,
    rubric: Rubric,
    answers: dict[str, LocatedAnswer],
    missing: dict[str, str],
    notes: list[str],
) -> None:
    """A .py upload is one program: every code question gets all of it."""
    from graders.documents.cues import compile_cues, found_cues  # with the locator (above)
    from graders.documents.locate import question_cues

    for question in rubric.questions:
        if question.answer_kind != "code":
            continue
        cues = sorted(set(found_cues(text, compile_cues(question_cues(question)))))
        missing.pop(question.id, None)
        whole = LocatedAnswer(
            question_id=question.id,
            text=text,
            start=0,
            end=len(text),
            confidence=0.95 if cues else 0.5,
            method="whole",
            note=("the whole .py file; found " + ", ".join(cues)) if cues
            else "the whole .py file; none of this question's names were found in it",
        )
        answers[question.id] = whole if cues else weak(whole, WHOLE_FILE)
    if any(q.answer_kind == "code" for q in rubric.questions):
        notes.append("a .py upload is graded as one program for every code question")


def answers_as_json(parsed: ParsedSubmission) -> str:
    """A readable dump of what was located (for debugging and the CLI)."""
    return json.dumps(
        {qid: {"start": a.start, "end": a.end, "method": a.method, "confidence": a.confidence,
               "label": a.label, "text": a.text[:200]} for qid, a in parsed.answers.items()},
        indent=2, ensure_ascii=False,
    )


_COMMENT = re.compile(r"(?m)^([ \t]*)#[ \t]?(.*)$")


def comments_only(text: str) -> str:
    """A Python file's comments as prose, line for line: each comment line without its `#` and
    indentation (spaces after it keep the line's length), every other line blanked."""
    kept = [" " * len(line) for line in text.split("\n")]
    for m in _COMMENT.finditer(text):
        line = text.count("\n", 0, m.start())
        opening = m.group(0)[:len(m.group(0)) - len(m.group(2))]
        kept[line] = m.group(2) + " " * len(opening)
    return "\n".join(kept)


def _comment_answers(text: str, rubric: Rubric, answers: dict[str, LocatedAnswer],
                     missing: dict[str, str]) -> None:
    """A .py upload answers its written and numeric questions in comments (`# Question 5`,
    `# (a) 1536 parameters`): a question that asks no code is read from the file's comments
    alone, where the comment lines are the document (the code between them is no answer); one
    the comments do not answer keeps what the whole file gave (a docstring, say)."""
    from graders.documents.locate import locate  # with the locator (above)

    wanted = [q.id for q in rubric.questions if q.answer_kind != "code"]
    if not wanted or "#" not in text:
        return
    found = locate(comments_only(text), rubric).answers
    for qid in wanted:
        answer = found.get(qid)
        if answer is not None:
            missing.pop(qid, None)
            answers[qid] = replace(answer, note="; ".join(
                n for n in (answer.note, "read from the .py file's comments") if n))
