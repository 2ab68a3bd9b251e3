"""Split a document into per-question answers using labels, content cues and order.

The document is cut into units: one per accepted label and one per paragraph after it. Every
unit is scored against every question (label match, the rubric's cue terms, the kind of answer)
and `graders.documents.assign` assigns units to questions in rubric order, or to nothing (notes,
headers, pasted lecture material).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from graders.documents.assign import (
    CONTENT_CAP,
    DUPLICATE_RELIABILITY,
    EXACT,
    FOREIGN,
    INLINE_RELIABILITY,
    MISMATCH,
    PARENT,
    SUBPART,
    Path,
    Unit,
    assign_in_rubric_order,
    is_statement,
    runs_of,
)
from graders.documents.cues import CuePattern, NormalisedText, compile_cues
from graders.documents.labels import LETTERS, ROMANS, LabelMark, find_labels
from graders.documents.model import LocatedAnswer, LocateMethod
from graders.rubric import Question, Rubric


@dataclass(frozen=True)
class Location:
    answers: dict[str, LocatedAnswer]
    missing: dict[str, str]
    notes: tuple[str, ...]


_LABEL_KEY = re.compile(
    r"^(?:([a-h])(?=\d))?(?:q|question|problem|exercise|ex|task)?(\d{1,2})"
    r"([a-h])?(viii|vii|vi|iv|ix|iii|ii|i|v|x)?$"
)


def question_keys(question: Question) -> list[Path]:
    """The label paths a question answers to, from its id and its declared labels."""
    keys: list[Path] = []
    for label in (question.id, *question.labels):
        compact = re.sub(r"[^a-z0-9]", "", label.lower())
        m = _LABEL_KEY.match(compact)
        if m:
            part = m.group(1).upper() if m.group(1) else None
            key: Path = (part, int(m.group(2)), m.group(3), m.group(4))
            if key not in keys:
                keys.append(key)
    if question.part and keys:
        keys = [(k[0] or None, k[1], k[2], k[3]) for k in keys]
    return keys


def _seq(path: Path) -> list[object]:
    out: list[object] = []
    for value in path[1:]:
        if value is None:
            break
        out.append(value)
    return out


def path_match(path: Path, keys: Sequence[Path], question_part: str) -> float:
    best = 0.0
    for key in keys:
        unit_part, key_part = path[0], key[0]
        if unit_part and key_part and unit_part != key_part:
            continue
        if unit_part and not key_part and question_part and unit_part != question_part.upper():
            continue
        unit_seq, key_seq = _seq(path), _seq(key)
        if not unit_seq or not key_seq:
            continue
        if unit_seq == key_seq:
            score = EXACT
        elif unit_seq[: len(key_seq)] == key_seq:
            score = SUBPART
        elif key_seq[: len(unit_seq)] == unit_seq:
            score = PARENT
        else:
            continue
        best = max(best, score)
    return best


def _next_letter(letter: str | None) -> str:
    return "a" if letter is None else chr(ord(letter) + 1)


def _roman_index(roman: str | None) -> int:
    return -1 if roman is None else ROMANS.index(roman)


def resolve_paths(marks: Sequence[LabelMark]) -> list[tuple[LabelMark, Path]]:
    """Follow the numbering through the document; drop labels that do not continue it.

    Dropped: inline labels out of sequence, and a number stepping back to one already answered
    ("2) ..." in a list inside 3(b), after 2(d)-(g) were answered): an enumeration, not a
    question. A step back to a number not seen yet (A3 before A2) and a restart at 1 (part B)
    are kept.
    """
    part: str | None = None
    num: int | None = None
    letter: str | None = None
    roman: str | None = None
    visited: set[tuple[str | None, int]] = set()
    accepted: list[tuple[LabelMark, Path]] = []
    for mark in marks:
        if mark.heading:
            part, num, letter, roman = mark.part, None, None, None
            accepted.append((mark, (part, None, None, None)))
            continue
        m_letter, m_roman = mark.letter, mark.roman
        if mark.num is None and m_letter is None and m_roman == "i" and letter == "h":
            m_letter, m_roman = "i", None  # after (h) an "(i)" is the next letter
        if mark.num is not None:
            new: Path = (mark.part or part, mark.num, m_letter, m_roman)
            if (num is not None and 1 < mark.num < num and mark.part is None
                    and (part, mark.num) in visited):
                continue
        elif m_letter is not None:
            expected = _next_letter(letter)
            gap = ord(m_letter) - ord(expected)
            allowed = gap == 0 if mark.inline else (0 <= gap <= 2 or m_letter == "a")
            if not allowed or m_letter not in LETTERS:
                continue
            new = (part, num, m_letter, m_roman)
        else:
            gap = _roman_index(m_roman) - (_roman_index(roman) + 1)
            allowed = gap == 0 if mark.inline else (0 <= gap <= 1 or m_roman == "i")
            if not allowed:
                continue
            new = (part, num, letter, m_roman)
        part, num, letter, roman = new
        if num is not None:
            visited.add((part, num))
        accepted.append((mark, new))
    return accepted


def _units(text: str, accepted: list[tuple[LabelMark, Path]]) -> list[Unit]:
    bounds: list[tuple[int, int, LabelMark | None, Path | None]] = []
    starts = [m.start for m, _ in accepted] + [len(text)]
    if accepted and accepted[0][0].start > 0:
        bounds.append((0, accepted[0][0].start, None, None))
    elif not accepted:
        bounds.append((0, len(text), None, None))
    for i, (label, label_path) in enumerate(accepted):
        bounds.append((label.end, starts[i + 1], label, label_path))
    units: list[Unit] = []
    previous_path: Path | None = None
    head_unit: Unit | None = None
    for start, end, mark, path in bounds:
        pieces = _paragraphs(text, start, end)
        if mark is not None:
            reliability = INLINE_RELIABILITY if mark.inline else 1.0
            head = Unit(start=pieces[0][0] if pieces else start,
                        end=pieces[0][1] if pieces else start,
                        mark=mark, path=path, reliability=reliability)
            if path is not None and path == previous_path and units:
                head.reliability *= DUPLICATE_RELIABILITY
                for unit in reversed(units):
                    if unit.mark is not None:
                        unit.reliability *= DUPLICATE_RELIABILITY
                        break
            previous_path = path
            units.append(head)
            head_unit = head
            pieces = pieces[1:]
        units.extend(Unit(start=s, end=e, head=head_unit) for s, e in pieces)
    following: Unit | None = None
    for unit in reversed(units):
        if unit.mark is not None:
            following = unit
        else:
            unit.next_head = following
    return units


def _paragraphs(text: str, start: int, end: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    cursor = start
    for m in re.finditer(r"\n[ \t]*\n", text[start:end]):
        spans.append((cursor, start + m.start()))
        cursor = start + m.end()
    spans.append((cursor, end))
    out: list[tuple[int, int]] = []
    for s, e in spans:
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if e > s:
            out.append((s, e))
    return out


def question_cues(question: Question) -> list[str]:
    cues = list(question.cues)
    for item in question.items:
        extra = item.config.get("cues")
        if isinstance(extra, list):
            cues.extend(str(c) for c in extra)
    return cues


_CODE_SIGNS = re.compile(
    r"^\s*(?:def |import |from \w+ import|return\b|for \w+ in |if .*:\s*$|```)"
    r"|np\.\w+\(|\w+\s*=\s*\w+\(",
    re.MULTILINE,
)


def _kind_score(question: Question, text: str) -> float:
    code_signs = len(_CODE_SIGNS.findall(text))
    if question.answer_kind == "code":
        return 1.0 if code_signs >= 1 else -1.5
    if question.answer_kind == "numeric" and not re.search(r"\d", text):
        return -0.5
    if question.answer_kind == "prose" and code_signs >= 3:
        return -1.0
    return 0.0


class _Scorer:
    def __init__(self, rubric: Rubric) -> None:
        self.questions = rubric.questions
        self.keys = [question_keys(q) for q in self.questions]
        self.cues = [compile_cues(question_cues(q)) for q in self.questions]
        # the question numbers the rubric has, per part: a label outside them is foreign
        self.numbers = {(k[0], k[1]) for keys in self.keys for k in keys}
        counts: dict[str, int] = {}
        for patterns in self.cues:
            for p in patterns:
                counts[p.regex.pattern] = counts.get(p.regex.pattern, 0) + 1
        self.idf = counts

    def content(self, q: int, norm: NormalisedText) -> tuple[float, list[str]]:
        found: list[CuePattern] = [p for p in self.cues[q] if norm.contains(p)]
        score = sum(1.0 / self.idf[p.regex.pattern] for p in found)
        return min(CONTENT_CAP, score), [p.cue for p in found]

    def score(self, units: list[Unit], text: str) -> None:
        for unit in units:
            norm = NormalisedText.of(text[unit.start:unit.end])
            body = text[unit.start:unit.end]
            for qi, question in enumerate(self.questions):
                label = 0.0
                if unit.path is not None and unit.mark is not None and not unit.mark.heading:
                    label = path_match(unit.path, self.keys[qi], question.part)
                unit.label_scores.append(label)
                unit.content.append(self.content(qi, norm))
                unit.kind.append(_kind_score(question, body))
            if not unit.labelled:
                continue
            if max(unit.label_scores) > 0:
                unit.label_scores = [
                    s * unit.reliability if s > 0 else MISMATCH * unit.reliability
                    for s in unit.label_scores
                ]
            elif unit.path is not None and self.foreign(unit.path):
                unit.label_scores = [FOREIGN * unit.reliability] * len(self.questions)

    def foreign(self, path: Path) -> bool:
        """A label whose question number no question of the rubric has."""
        part, num = path[0], path[1]
        if num is None or not self.numbers:
            return False
        return not any(n == num and (p is None or part is None or p == part)
                       for p, n in self.numbers)


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def locate(text: str, rubric: Rubric) -> Location:
    marks = find_labels(text)
    accepted = resolve_paths(marks)
    units = _units(text, accepted)
    scorer = _Scorer(rubric)
    scorer.score(units, text)
    assignment = assign_in_rubric_order(units, len(rubric.questions))
    notes = _restart_notes(text, accepted)
    answers: dict[str, LocatedAnswer] = {}
    missing: dict[str, str] = {}
    for qi, question in enumerate(rubric.questions):
        runs = runs_of(assignment, qi)
        if not runs:
            missing[question.id] = _missing_reason(question, scorer.cues[qi])
            continue
        chosen = next((r for r in runs if any(units[i].label_scores[qi] > 0 for i in r)),
                      runs[0])
        dropped = [units[r[0]] for r in runs if r is not chosen]
        answers[question.id] = _located(
            text, question, qi, [units[i] for i in chosen], dropped)
    return Location(answers, missing, tuple(notes))


def _located(
    text: str, question: Question, qi: int, units: list[Unit], dropped: list[Unit]
) -> LocatedAnswer:
    head = units[0]
    body = list(units)
    while len(body) > 1 and is_statement(text, body[0]):
        body.pop(0)
    while len(body) > 1 and is_statement(text, body[-1]):
        body.pop()
    start, end = body[0].start, body[-1].end
    label_score = head.label_scores[qi]
    cues = sorted({c for u in units for c in u.content[qi][1]})
    content = min(CONTENT_CAP, sum(u.content[qi][0] for u in units))
    method: LocateMethod
    notes: list[str] = []
    if label_score > 0:
        method = "label"
        confidence = {EXACT: 0.95, SUBPART: 0.9, PARENT: 0.85}.get(
            round(label_score / head.reliability, 6), 0.85)
        # inline and duplicated labels are weaker evidence; matching content restores some trust
        confidence *= 0.7 + 0.3 * head.reliability
        if content >= 1:
            confidence = min(0.97, confidence + 0.05)
        elif content == 0 and question.cues:
            confidence -= 0.15
    elif content > 0:
        method = "content"
        confidence = min(0.85, 0.45 + 0.15 * content)
        if head.mark is not None:
            notes.append(f"the label {head.mark.raw!r} was read as {question.id} by its content")
    else:
        method = "order"
        confidence = 0.35
    if head.moved_for == qi:
        notes.append(f"answered out of order (line {_line_of(text, head.start)}); "
                     "its label and content both name this question")
    for unit in dropped:
        notes.append(f"a passage at line {_line_of(text, unit.start)} also reads like this "
                     "answer but lies beyond another question's answer; it was left out")
    for unit in units[1:]:
        if unit.mark is not None and unit.label_scores[qi] <= 0:
            notes.append(
                f"includes the passage labelled {unit.mark.raw!r} "
                f"(line {_line_of(text, unit.start)}), which matches this question's content"
            )
    if len(body) < len(units):
        notes.append(f"{len(units) - len(body)} pasted question statement(s) "
                     "(marked with their points) left out")
    if cues:
        notes.append("content cues: " + ", ".join(cues[:8]))
    return LocatedAnswer(
        question_id=question.id,
        text=text[start:end],
        start=start,
        end=end,
        confidence=round(max(0.05, min(1.0, confidence)), 2),
        method=method,
        label=head.mark.raw if head.mark is not None else None,
        note="; ".join(notes),
    )


def _missing_reason(question: Question, cues: list[CuePattern]) -> str:
    labels = ", ".join(dict.fromkeys((question.id, *question.labels)))
    hint = ", ".join(p.cue for p in cues[:5])
    reason = f"No answer to {question.id} was found: no label ({labels}) in order"
    return reason + (f" and no passage mentioning {hint}." if hint else ".")


def _restart_notes(text: str, accepted: list[tuple[LabelMark, Path]]) -> list[str]:
    notes: list[str] = []
    last: int | None = None
    for mark, _path in accepted:
        if mark.num is None:
            continue
        if last is not None and mark.num <= last:
            what = "repeats" if mark.num == last else "restarts"
            notes.append(
                f"numbering {what} at {mark.raw!r} (line {_line_of(text, mark.start)}); "
                "questions there were identified by order and content"
            )
        last = mark.num
    return notes
