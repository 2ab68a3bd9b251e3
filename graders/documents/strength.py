"""How strongly each answer was located, and whether the document answers this assignment at all.

An answer found under its own label (a heading, bold line, list marker or notebook cell that
names the question, or a JSON key) is strong. Everything else is weak and says why: a heading
counted by order, a neighbouring part's block, code under a question that asks for prose, or
content alone. Graders still score a weak answer; the engine sends its items to review with the
reason and the machine's points as a suggestion. A document in which most questions are not
found at all is doubted as a whole: every item goes to review, none is graded 0 as missing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace

from graders.documents.model import LocatedAnswer
from graders.rubric_model import Rubric

BY_CONTENT = "located by its content only (no label names this question)"
BY_ORDER = "located by position only (no label or content names this question)"
BY_HEADING_ORDER = "located by heading order only ({heading!r} counted as this question)"
BY_STRAY = ("located by its content only, away from where the rubric's order puts it (no label "
            "names this question)")
BY_NEIGHBOUR = "located in the block of its neighbouring part {part} only"
CODE_FOR_PROSE = "only code was found for a question that does not ask for code"
WHOLE_FILE = "the whole .py file, and none of this question's names appear in it"


def weak(answer: LocatedAnswer, reason: str) -> LocatedAnswer:
    """The answer marked weak (the first reason kept, later ones added)."""
    reasons = [r for r in (answer.weak_reason, reason) if r]
    return replace(answer, strength="weak", weak_reason="; ".join(dict.fromkeys(reasons)))


DOUBT = "does this answer this assignment?"
_DOUBT_END = "right document"


def doubt_in(feedbacks: Iterable[str]) -> str | None:
    """The document-level doubt a result's feedback carries ("does this answer this
    assignment? 1 of 4 questions found; ..."), for the answer to an upload."""
    for feedback in feedbacks:
        at = feedback.find(DOUBT)
        if at >= 0:
            end = feedback.find(_DOUBT_END, at)
            return feedback[at:end + len(_DOUBT_END) if end >= 0 else at + 160]
    return None


def assignment_doubt(
    rubric: Rubric, answers: Mapping[str, LocatedAnswer], code_only: bool = False,
    handout: str | None = None,
) -> str:
    """"does this answer this assignment? N of M questions found" when fewer than half of the
    questions every edition asks (the declared `handout` asks) were found; "" otherwise.
    `code_only`: the upload is a program (a .py file), which can only answer the code
    questions."""
    asked = [q for q in rubric.questions
             if (rubric.asks(q, handout) if handout is not None
                 else not rubric.handouts_without(q))
             and (not code_only or q.answer_kind == "code")]
    if not asked:
        return ""
    found = sum(1 for q in asked if q.id in answers and answers[q.id].text.strip())
    if 2 * found >= len(asked):
        return ""
    return (f"{DOUBT} {found} of {len(asked)} questions found; a grader should check that "
            f"this is the {_DOUBT_END}")


def with_doubt(answers: Mapping[str, LocatedAnswer], doubt: str) -> dict[str, LocatedAnswer]:
    if not doubt:
        return dict(answers)
    return {qid: replace(a, doubt=doubt) for qid, a in answers.items()}


__all__ = [
    "BY_CONTENT", "BY_HEADING_ORDER", "BY_NEIGHBOUR", "BY_ORDER", "BY_STRAY", "CODE_FOR_PROSE",
    "DOUBT", "WHOLE_FILE", "assignment_doubt", "doubt_in", "weak", "with_doubt",
]
