"""Honest location: the best candidate for a question no label or content placed, and answers
that no grader can read (another language) sent to a human instead of scored as wrong.

`missing` is a promise that the document has no answer. When text that nothing else claims lies
where the question's answer would be (between the answers before and after it, in rubric order)
and no other question's label heads it, that text is the best candidate: it is graded at a low
location confidence, which sends its items to review.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import replace

from graders.documents.assign import Unit
from graders.documents.model import LocatedAnswer
from graders.rubric import Question

CANDIDATE_CONFIDENCE = 0.3
FOREIGN_CONFIDENCE = 0.3
_MIN_CANDIDATE = 40  # characters: a stray "None." or a page number is not an answer
_MATH = re.compile(r"\$\$.{0,4000}?\$\$|\$[^$\n]{0,400}\$", re.S)
_SAMPLE = 4000


def gap_candidate(
    text: str,
    question: Question,
    qi: int,
    units: Sequence[Unit],
    assignment: Sequence[int | None],
    names: Sequence[float],
    n_questions: int,
) -> LocatedAnswer | None:
    """Unclaimed text between the answers to the questions before and after `qi`.

    `names[i]` is how strongly unit i's own label names this question (> 0: it does); a unit
    under another label belongs to that label's block and is never a candidate.
    """
    before = [i for i, q in enumerate(assignment) if q is not None and q < qi]
    after = [i for i, q in enumerate(assignment) if q is not None and q > qi]
    low = max(before) + 1 if before else 0
    high = min(after) if after else len(units)
    if low >= high:
        return None
    # order says which question the gap answers only when one question is unplaced there
    previous = max((q for q in assignment if q is not None and q < qi), default=-1)
    following = min((q for q in assignment if q is not None and q > qi), default=n_questions)
    if following - previous > 2:
        return None
    index_of = {id(u): i for i, u in enumerate(units) if u.mark is not None}
    run: list[int] = []
    for i in range(low, high):
        unit = units[i]
        owner = unit if unit.mark is not None else unit.head
        foreign = owner is not None and names[index_of.get(id(owner), i)] <= 0
        if assignment[i] is not None or foreign:
            if run:
                break
            continue
        run.append(i)
    if not run:
        return None
    start, end = units[run[0]].start, units[run[-1]].end
    if len(text[start:end].strip()) < _MIN_CANDIDATE:
        return None
    return LocatedAnswer(
        question_id=question.id,
        text=text[start:end],
        start=start,
        end=end,
        confidence=CANDIDATE_CONFIDENCE,
        method="order",
        note=("no label or content names this question; the text that no other answer claims, "
              "where its answer would be by order, is the best candidate - a grader should "
              "check that it answers this question"),
    )


def script_share(text: str) -> tuple[float, str]:
    """Share of letters outside the Latin script (mathematics left out), and the main script."""
    sample = text[:_SAMPLE]
    if sample.isascii():
        return 0.0, ""
    prose = _MATH.sub(" ", sample)
    latin = other = 0
    scripts: dict[str, int] = {}
    for ch in prose:
        if not ch.isalpha():
            continue
        if ch.isascii():
            latin += 1
            continue
        name = unicodedata.name(ch, "")
        script = name.split(" ", 1)[0] if name else "UNKNOWN"
        if script in ("LATIN", "GREEK"):  # accents; Greek letters are mathematics here
            latin += 1
            continue
        # a CJK character carries a word: weigh it like one
        weight = 3 if script in ("CJK", "HIRAGANA", "KATAKANA", "HANGUL") else 1
        other += weight
        scripts[script] = scripts.get(script, 0) + weight
    total = latin + other
    main = max(scripts, key=lambda s: scripts[s]) if scripts else ""
    return (other / total if total else 0.0), main


def flag_language(answer: LocatedAnswer) -> LocatedAnswer:
    """An answer written mostly in another script goes to review: the graders read English."""
    share, script = script_share(answer.text)
    if share < 0.3:
        return answer
    note = (f"the answer is written mostly in another language ({script.title()} script); "
            "the graders read English, so a human should grade it")
    return replace(answer, confidence=min(answer.confidence, FOREIGN_CONFIDENCE),
                   note="; ".join(n for n in (answer.note, note) if n))


def label_names(units: Sequence[Unit], qi: int) -> list[float]:
    return [u.label_scores[qi] if u.mark is not None and u.label_scores else 0.0 for u in units]


__all__ = ["flag_language", "gap_candidate", "label_names", "script_share"]
