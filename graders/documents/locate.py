"""Split a document into per-question answers using labels, content cues and order.

The document is cut into units: one per accepted label and one per paragraph after it. Every
unit is scored against every question (label match, the rubric's cue terms, the kind of answer)
and `graders.documents.assign` assigns units to questions in rubric order, or to nothing (notes,
headers, pasted lecture material).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from graders.documents.assign import (
    CONTENT_CAP,
    EXACT,
    FOREIGN,
    MISMATCH,
    PARENT,
    SUBPART,
    Path,
    Unit,
    answer_start,
    assign_in_rubric_order,
    is_statement,
    runs_of,
)
from graders.documents.blocks import MAX_CHARS, outline, units_of
from graders.documents.code_spans import after_question_cells, fence_spans, prose_of
from graders.documents.cues import CuePattern, NormalisedText, compile_cues
from graders.documents.handout import prompt_words
from graders.documents.labels import LabelMark
from graders.documents.model import LocatedAnswer, LocateMethod
from graders.documents.notebook import Cell
from graders.documents.paths import path_match, question_keys, resolve_paths
from graders.documents.phrases import PhraseMark, phrase_marks
from graders.documents.printed_written import printed_blocks, written_over_printed, written_run
from graders.documents.review import (
    flag_language,
    gap_candidate,
    label_names,
    unlabelled_answers,
)
from graders.documents.strength import (
    BY_CONTENT,
    BY_HEADING_ORDER,
    BY_ORDER,
    weak,
)
from graders.documents.tables import plain_rows
from graders.rubric_model import Question, Rubric


@dataclass(frozen=True)
class Location:
    answers: dict[str, LocatedAnswer]
    missing: dict[str, str]
    notes: tuple[str, ...]
    # questions in `missing` whose absence is not sure: unclaimed text mentions their cues
    # (question id -> what a grader should check); their items go to review, suggested at 0
    unsure: dict[str, str] = field(default_factory=dict)


# a sub-part's marker among an item's cues (`cues: ["(a)", attention]`, as rubrics.md asks for
# sub-parts answered in one block) picks the item's value inside its answer; every question with
# sub-parts has one, so it says nothing of which question a passage answers
_SUBPART_MARKER = re.compile(r"\(?(?:[a-h]|[ivx]{1,4}|\d{1,2})[).]?")


def question_cues(question: Question) -> list[str]:
    cues = list(question.cues)
    for item in question.items:
        extra = item.config.get("cues")
        if isinstance(extra, list):
            cues.extend(str(c) for c in extra
                        if _SUBPART_MARKER.fullmatch(str(c).strip()) is None)
    return cues


_CODE_SIGNS = re.compile(
    r"^[ \t]{0,40}(?:def |import |from \w{1,40} import|return\b|for \w{1,40} in |"
    r"if [^\n]{0,200}:[ \t]*$|```)"
    # bounded and anchored at a word start: `\w+\s*=` from every position of a long word is
    # quadratic in its length
    r"|np\.\w{1,40}\(|\b\w{1,40}[ \t]{0,4}=[ \t]{0,4}\w{1,40}\(",
    re.MULTILINE,
)


SCORE_CHARS = 8000
ONLY_HANDOUT = "only the question's own wording"
# every code sign contains one of these; most prose passages have none
_MAYBE_CODE = re.compile(r"=|def |import |return|```|np\.|for \w")


def _kind_score(question: Question, text: str, code_signs: int) -> float:
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
        # the rubric's numbered questions counted across its parts (A1..A6 then B1..B4 are 1..10):
        # a student who numbers part B on from part A ("Problem 7") means the 7th
        self.running: list[tuple[str | None, int]] = []
        for qi, keys in enumerate(self.keys):
            if keys and keys[0][1] is not None:
                key = (keys[0][0] or self.questions[qi].part or None, keys[0][1])
                if key not in self.running:
                    self.running.append(key)
        counts: dict[str, int] = {}
        for patterns in self.cues:
            for p in patterns:
                counts[p.regex.pattern] = counts.get(p.regex.pattern, 0) + 1
        self.idf = counts
        # the deepest level the questions have (1 numbers, 2 letters, 3 romans); unknown: 3
        self.depth = max((3 if k[3] else 2 if k[2] else 1 for keys in self.keys for k in keys),
                         default=3)

    def content(self, q: int, norm: NormalisedText) -> tuple[float, list[str]]:
        found: list[CuePattern] = [p for p in self.cues[q] if norm.contains(p)]
        score = sum(1.0 / self.idf[p.regex.pattern] for p in found)
        return min(CONTENT_CAP, score), [p.cue for p in found]

    def score(self, units: list[Unit], text: str) -> None:
        for unit in units:
            # what a passage is about shows in its first pages: a capped read keeps a huge
            # unlabelled tail (hostile or not) from costing a scan per question
            body = text[unit.start:min(unit.end, unit.start + SCORE_CHARS)]
            norm = NormalisedText.of(body)
            code_signs = len(_CODE_SIGNS.findall(body)) if _MAYBE_CODE.search(body) else 0
            for qi, question in enumerate(self.questions):
                label = 0.0
                if unit.mark is not None and unit.mark.question is not None:
                    label = EXACT if unit.mark.question == qi else 0.0
                elif unit.path is not None and unit.mark is not None and not unit.mark.heading:
                    label = path_match(self.renumbered(unit.path), self.keys[qi],
                                       question.part)
                unit.label_scores.append(label)
                unit.content.append(self.content(qi, norm))
                unit.kind.append(_kind_score(question, body, code_signs))
            if not unit.labelled:
                continue
            if max(unit.label_scores) > 0:
                unit.label_scores = [
                    s * unit.reliability if s > 0 else MISMATCH * unit.reliability
                    for s in unit.label_scores
                ]
            elif unit.path is not None and self.foreign(self.renumbered(unit.path)):
                unit.label_scores = [FOREIGN * unit.reliability] * len(self.questions)

    def as_label(self, mark: PhraseMark) -> LabelMark:
        """A phrase label as an outline label at the question's own path."""
        keys = self.keys[mark.question]
        part, num, letter, roman = keys[0] if keys else (None, None, None, None)
        level = 3 if roman else 2 if letter else 1
        # a phrase label is the document's outline (numbers in its answer are points of the
        # answer); a repeated prompt is read like any label written in the text
        structural = not mark.by_prompt or mark.raw.startswith("#")
        return LabelMark(start=mark.start, end=mark.end, raw=mark.raw, part=part, num=num,
                         letter=letter, roman=roman, structural=structural, level=level,
                         question=mark.question, prompted=mark.by_prompt)

    def handout_words(self, path: Path) -> frozenset[str]:
        """The prompt words of the questions a label path names (for spotting pasted text)."""
        words: frozenset[str] = frozenset()
        for qi, question in enumerate(self.questions):
            if question.prompt and path_match(path, self.keys[qi], question.part) > 0:
                words |= prompt_words(question.prompt)
        return words

    def renumbered(self, path: Path) -> Path:
        """A number no part has, read as a running number across the parts (7 -> B1)."""
        part, num = path[0], path[1]
        if (part is None and num is not None and self.foreign(path)
                and len({p for p, _ in self.running}) > 1 and num <= len(self.running)):
            new_part, new_num = self.running[num - 1]
            return (new_part, new_num, path[2], path[3])
        return path

    def foreign(self, path: Path) -> bool:
        """A label whose question number no question of the rubric has."""
        part, num = path[0], path[1]
        if num is None or not self.numbers:
            return False
        return not any(n == num and (p is None or part is None or p == part)
                       for p, n in self.numbers)


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def locate(text: str, rubric: Rubric, cells: Sequence[Cell] = (),
           handout: str | None = None) -> Location:
    """`cells`: the text is a rendered notebook (`graders.documents.notebook`) with these cells:
    the markdown cell that asks a question is not its answer, and a code cell ends the answer
    cell before it. `handout`: the edition declared with the submission (None: undeclared)."""
    notes: list[str] = []
    if len(text) > MAX_CHARS:
        notes.append(f"only the first {MAX_CHARS} characters were searched for answers "
                     f"(the document has {len(text)})")
        text = text[:MAX_CHARS]
    scorer = _Scorer(rubric)
    found = phrase_marks(text, rubric.questions)
    named = [scorer.as_label(m) for m in found if not m.by_prompt]
    prompted = [scorer.as_label(m) for m in found if m.by_prompt]
    shape = outline(text, scorer.depth, named, prompted)
    units, only_handout = units_of(text, shape, scorer.handout_words)
    scorer.score(units, text)
    assignment = assign_in_rubric_order(units, len(rubric.questions))
    notes.extend(_restart_notes(text, shape.accepted))
    answers: dict[str, LocatedAnswer] = {}
    missing: dict[str, str] = {}
    # what the answers hold: text trimmed off the start of a run (a README's overview before
    # the first label) is assigned to no answer, so the stray search may read it
    claimed: list[int | None] = list(assignment)
    printed = printed_blocks(cells)
    for qi, question in enumerate(rubric.questions):
        runs = runs_of(assignment, qi)
        if not runs:
            why = _missing_reason(question, scorer, qi, only_handout)
            # under its own label there is only the question (an untouched template): the
            # document says it has no answer, and no other text is a candidate
            candidate = None if ONLY_HANDOUT in why else gap_candidate(
                text, question, qi, units, assignment, label_names(units, qi),
                len(rubric.questions))
            if candidate is None:
                missing[question.id] = why
            else:
                answers[question.id] = flag_language(weak(candidate, BY_ORDER))
            continue
        run = next((r for r in runs if any(units[i].label_scores[qi] > 0 for i in r)), runs[0])
        if printed:
            run = written_run(text, runs, run, units, qi, printed)
        dropped = [units[r[0]] for r in runs if r is not run]
        # an answer starts at its own label: unlabelled text before it that the run took for
        # its content (a README's overview) is not part of it
        first = next((k for k, i in enumerate(run) if units[i].label_scores[qi] > 0), 0)
        chosen = run
        if first and all(units[i].mark is None for i in run[:first]):
            chosen = run[first:]
            claimed[run[0]:chosen[0]] = [None] * (chosen[0] - run[0])
        answers[question.id] = flag_language(_located(
            text, question, qi, [units[i] for i in chosen], dropped))
    if cells:
        after_question_cells(text, answers, cells, {q.id: q for q in rubric.questions})
    _without_code(text, rubric, answers, missing, bool(cells))
    written_over_printed(text, rubric.questions, answers, printed)  # a notebook's own values
    unsure = unlabelled_answers(text, rubric.questions, units, claimed, answers, missing,
                                ONLY_HANDOUT, handout)
    if handout is None:  # a declared edition says which questions this student was asked
        _edition_questions(rubric, answers, missing)
    return Location(answers, missing, tuple(notes),
                    {qid: why for qid, why in unsure.items() if qid in missing})


def _without_code(
    text: str, rubric: Rubric, answers: dict[str, LocatedAnswer], missing: dict[str, str],
    notebook: bool,
) -> None:
    spans = fence_spans(text)
    if not spans:
        return
    for question in rubric.questions:
        answer = answers.get(question.id)
        if answer is None:
            continue
        kept = prose_of(text, answer, question, spans, notebook)
        if kept is None:
            del answers[question.id]
            where = f"under {answer.label!r}" if answer.label else "where it would be"
            missing[question.id] = (
                f"No answer to {question.id} was found: {where} there is no written answer "
                f"(an empty answer cell, or only code cells; this question asks for "
                f"{question.answer_kind}, not code).")
        else:
            answers[question.id] = kept


def _edition_questions(
    rubric: Rubric, answers: dict[str, LocatedAnswer], missing: dict[str, str]
) -> None:
    """A question only some handout editions ask is answered only under a label (its own, or a
    heading in its place): content, position or a neighbour's block (numbers in another
    edition's code) do not say that this student's handout asked it."""
    for question in rubric.questions:
        answer = answers.get(question.id)
        if (not question.handouts or answer is None or answer.strength == "strong"
                or (answer.method == "label" and answer.label is not None)):
            continue
        del answers[question.id]
        missing[question.id] = (
            f"No answer to {question.id} was found under its own label ({answer.weak_reason}, "
            "which is not enough for a question that only some handout editions ask).")


__all__ = ["Location", "locate", "question_cues", "question_keys", "resolve_paths"]


def _located(
    text: str, question: Question, qi: int, units: list[Unit], dropped: list[Unit]
) -> LocatedAnswer:
    head = units[0]
    body = list(units)
    while len(body) > 1 and is_statement(text, body[0]):
        body.pop(0)
    while len(body) > 1 and is_statement(text, body[-1]):
        body.pop()
    start, end = answer_start(body[0], qi, question_keys(question)), body[-1].end
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
    pasted = len(units) - len(body) + sum(u.handout for u in units)
    if pasted:
        notes.append(f"{pasted} pasted question statement(s) (the handout's wording) left out")
    if cues:
        notes.append("content cues: " + ", ".join(cues[:8]))
    answer = text[start:end]
    if head.mark is not None and head.mark.declared and head.mark.raw.startswith("|"):
        answer = plain_rows(answer)  # the rows of a table of answers
    located = LocatedAnswer(
        question_id=question.id,
        text=answer,
        start=start,
        end=end,
        confidence=round(max(0.05, min(1.0, confidence)), 2),
        method=method,
        label=head.mark.raw if head.mark is not None else None,
        note="; ".join(notes),
    )
    if method == "content":
        return weak(located, BY_CONTENT)
    if method == "order":
        return weak(located, BY_ORDER)
    if head.mark is not None and head.mark.by_order:
        return weak(located, BY_HEADING_ORDER.format(heading=head.mark.raw))
    return located


def _missing_reason(
    question: Question, scorer: _Scorer, qi: int, only_handout: list[tuple[LabelMark, Path]]
) -> str:
    for mark, path in only_handout:
        # "(b)" with no number before it names the letter of any question
        loose = path[1] is None and any(k[2:] == path[2:] for k in scorer.keys[qi])
        if mark.question == qi or (mark.question is None and (
                loose or path_match(path, scorer.keys[qi], question.part) > 0)):
            return (f"No answer to {question.id} was found: under the label {mark.raw!r} there "
                    f"is {ONLY_HANDOUT} (the handout's text, or an empty answer template), "
                    "no answer.")
    labels = ", ".join(dict.fromkeys((question.id, *question.labels)))
    hint = ", ".join(p.cue for p in scorer.cues[qi][:5])
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
