"""Split a document into per-question answers using labels, content cues and order.

The document is cut into units: one per accepted label and one per paragraph after it. Every
unit is scored against every question (label match, the rubric's cue terms, the kind of answer)
and `graders.documents.assign` assigns units to questions in rubric order, or to nothing (notes,
headers, pasted lecture material).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from graders.documents.assign import (
    CONTENT_CAP,
    EXACT,
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
from graders.documents.invisible import Shown
from graders.documents.labels import LabelMark
from graders.documents.model import LocatedAnswer, LocateMethod
from graders.documents.notebook import Cell
from graders.documents.paths import path_match, question_keys, resolve_paths
from graders.documents.phrases import phrase_marks
from graders.documents.printed_written import printed_blocks, written_over_printed, written_run
from graders.documents.repeats import answered_twice
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
from graders.documents.unit_scores import ONLY_HANDOUT, UnitScorer, question_cues
from graders.rubric_model import Question, Rubric


@dataclass(frozen=True)
class Location:
    answers: dict[str, LocatedAnswer]
    missing: dict[str, str]
    notes: tuple[str, ...]
    # questions in `missing` whose absence is not sure: unclaimed text mentions their cues
    # (question id -> what a grader should check); their items go to review, suggested at 0
    unsure: dict[str, str] = field(default_factory=dict)




def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def locate(text: str, rubric: Rubric, cells: Sequence[Cell] = (),
           handout: str | None = None) -> Location:
    """`cells`: the text is a rendered notebook (`graders.documents.notebook`) with these cells:
    the markdown cell that asks a question is not its answer, and a code cell ends the answer
    cell before it. `handout`: the edition declared with the submission (None: undeclared).
    The document is read as shown, without invisible format characters
    (`graders.documents.invisible`); the answers are spans of `text` as written."""
    shown = Shown(text)
    if not shown:
        return _locate(text, rubric, cells, handout)
    location = _locate(shown.text, rubric, shown.cells(cells), handout)
    return replace(location, answers={qid: shown.answer(answer)
                                      for qid, answer in location.answers.items()})


def _locate(text: str, rubric: Rubric, cells: Sequence[Cell], handout: str | None) -> Location:
    notes: list[str] = []
    if len(text) > MAX_CHARS:
        notes.append(f"only the first {MAX_CHARS} characters were searched for answers "
                     f"(the document has {len(text)})")
        text = text[:MAX_CHARS]
    scorer = UnitScorer(rubric)
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
        located = flag_language(_located(
            text, question, qi, [units[i] for i in chosen], dropped))
        # the same label over another stretch too: both its answers, in document order
        sections = [[units[i] for i in (chosen if r is run else r)] for r in runs]
        twice = answered_twice(text, question.id, question.prompt, qi, sections,
                               prose=question.answer_kind == "prose")
        answers[question.id] = located if twice is None else weak(located, twice)
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
    question: Question, scorer: UnitScorer, qi: int, only_handout: list[tuple[LabelMark, Path]]
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
