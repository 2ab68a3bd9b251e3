"""Assign scored units to questions: a dynamic programme in rubric order, after moving clearly
labelled blocks that a student answered out of order to where the rubric expects them.

A unit is one labelled passage or one paragraph. The programme walks the units in order and
keeps, for every "last question answered so far", the best total score; each unit either
answers the current or a later question, or is not an answer (notes, headers, pasted lecture
material). Order does what label numbers cannot: a `Q1` after `Q6` can only be part B's first
question, and a second `Q6` is decided by what it talks about. Rubric order would lose an
answer written out of order (B2 before B1), so a block whose label and content both name one
question is moved to that question's place first; unlabelled and ambiguous pieces travel with
the block they sit in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graders.documents.labels import WORDED, LabelMark

Path = tuple[str | None, int | None, str | None, str | None]  # part, number, letter, roman

EXACT, SUBPART, PARENT, MISMATCH = 3.0, 2.5, 2.0, -2.0
LETTER_ONLY = 1.5  # a letter label with no number known: it names that letter of any question
# A label naming a question number the rubric does not have ("3. Considerations" when the
# rubric stops at 2g): that passage answers something else.
FOREIGN = -3.0
# An unlabelled paragraph stays with the answer before it unless the content of another question
# outweighs SWITCH; staying only needs to beat "not an answer" (0), so its reward is tiny: a long
# run of empty paragraphs (lecture notes before the first answer) must not pay for starting an
# answer early.
STAY = 0.01
SWITCH = -1.25
UNLABELLED = -0.25
CONTENT_CAP = 3.0
INLINE_RELIABILITY = 0.8
DUPLICATE_RELIABILITY = 0.4
# Inside a labelled passage, cue words of an earlier question than the label names are weak
# evidence (a 1c.ii derivation reuses 1c.i's query), and so are cue words of the question the
# next label names (that answer is about to start under its own label): they count for this
# share only. Other cue words of a later question count in full: its label may be missing.
WEAK_CONTENT = 0.25
# the content score of one cue word of a question: less than a label in words says
ONE_CUE = 1.0


@dataclass
class Unit:
    start: int
    end: int
    mark: LabelMark | None = None
    path: Path | None = None
    reliability: float = 1.0
    label_scores: list[float] = field(default_factory=list)
    content: list[tuple[float, list[str]]] = field(default_factory=list)
    kind: list[float] = field(default_factory=list)
    # the labelled unit this paragraph follows (None before the first label), and the next one
    head: Unit | None = None
    next_head: Unit | None = None
    # its question's number was written in words or by a label as plain (`Question 5`, `Q5.`,
    # a table of answers' row, `Part 5`, a `## 5` heading: `names_its_number`), by its own label
    # or by the numbered label its letter is under (`Question 5` then `(a)`)
    in_words: bool = False
    # set on the head of a block moved to rubric order: the question it was moved for
    moved_for: int | None = None
    # handout paragraphs (the pasted question) left out before this label's answer
    handout: int = 0

    @property
    def labelled(self) -> bool:
        return self.mark is not None and not self.mark.heading


def unit_score(unit: Unit, q: int) -> float:
    label = unit.label_scores[q]
    base = 0.0 if label > 0 else UNLABELLED
    return label + unit.content[q][0] + unit.kind[q] + base


def _named(head: Unit | None) -> list[int]:
    """The questions a reliable label names (an inline or duplicated one may be wrong)."""
    if head is None or not head.labelled or head.reliability < 1.0:
        return []
    return [i for i, score in enumerate(head.label_scores) if score > 0]


def _continuation_content(unit: Unit, q: int) -> float:
    content = unit.content[q][0]
    named = _named(unit.head)
    if not named:
        return content
    if q < min(named) or q in _named(unit.next_head):
        return content * WEAK_CONTENT
    return content


def assign(units: list[Unit], n_questions: int) -> list[int | None]:
    """Best monotone assignment of units to question indices (None: not an answer).

    An answer starts at a unit with evidence (a label, or content of that question); a
    paragraph with neither can only carry on the answer before it.
    """
    neg = float("-inf")
    # state: (last question index + 1, previous unit was an answer)
    size = n_questions + 1
    best = [[neg, neg] for _ in range(size)]
    best[0][0] = 0.0
    back: list[list[list[tuple[int, int, int | None]]]] = []
    for unit in units:
        continuation = unit.mark is None
        carry = [_continuation_content(unit, q) for q in range(n_questions)]
        # the questions a paragraph can start (its own content) and a label's scores, once
        starts = [q for q in range(1, size) if carry[q - 1] > 0]
        labelled = [] if continuation else [unit_score(unit, q) for q in range(n_questions)]
        new = [[neg, neg] for _ in range(size)]
        ptr: list[list[tuple[int, int, int | None]]] = [[(0, 0, None)] * 2 for _ in range(size)]
        for j in range(size):
            for was in (0, 1):
                current = best[j][was]
                if current == neg:
                    continue
                if current > new[j][0]:
                    new[j][0] = current
                    ptr[j][0] = (j, was, None)
                low = max(j, 1)
                if continuation:
                    stay = [j] if was and j >= 1 and carry[j - 1] <= 0 else []
                    targets: list[int] | range = stay + [q for q in starts if q >= low]
                else:
                    targets = range(low, size)
                for q in targets:
                    if continuation and was and q == j:
                        # a paragraph carrying on an answer: prose around code is still the answer
                        gain = carry[q - 1] + max(unit.kind[q - 1], 0.0) + STAY
                    elif continuation:
                        gain = carry[q - 1] + unit.kind[q - 1] + SWITCH
                    else:
                        gain = labelled[q - 1]
                    total = current + gain
                    if total > new[q][1] + 1e-9:
                        new[q][1] = total
                        ptr[q][1] = (j, was, q - 1)
        back.append(ptr)
        best = new
    state = max(((j, w) for j in range(size) for w in (0, 1)), key=lambda s: best[s[0]][s[1]])
    out: list[int | None] = [None] * len(units)
    j, w = state
    for i in range(len(units) - 1, -1, -1):
        pj, pw, assigned = back[i][j][w]
        out[i] = assigned
        j, w = pj, pw
    return out


def anchor(unit: Unit) -> int | None:
    """The question a unit clearly answers: its label names that question best, at full
    reliability, and its content agrees (cues of that question, none stronger anywhere), or,
    where no question's cues claim it, the label names the question in words. A label that fits
    two questions equally ("Q3": A3 or B3) is settled by the content."""
    if not unit.labelled or unit.reliability < 1.0 or not unit.label_scores:
        return None
    top = max(unit.label_scores)
    if top < SUBPART:
        return None
    content = [c for c, _ in unit.content]
    named = sorted((i for i, s in enumerate(unit.label_scores) if s == top),
                   key=lambda i: content[i], reverse=True)
    q = named[0]
    # a label naming its question in words ("Question 5", "Q5."), with its sub-part ("2-a",
    # "2b)"), by its form (a row of a table of answers, `Part 5`) or as a heading numbered by
    # its label (`## 2`) stands alone where no question's cues claim the block more than by
    # one cue (prose and derivations rarely have cues, and one word of another question's,
    # "activations" in an answer on memory, says less than the label); a bare "5." is too
    # often a point of an answer to move a block by itself
    mark = unit.mark
    specific = unit.in_words or (mark is not None and mark.num is not None
                                 and mark.letter is not None and not mark.inline)
    alone = (len(named) == 1 and specific
             and max(content) - max(content[q], 0.0) <= ONE_CUE)
    if not alone and (content[q] < max(content) or content[q] <= 0):
        return None
    if len(named) > 1 and content[named[1]] >= content[q]:
        return None
    return q


def names_its_number(mark: LabelMark) -> bool:
    """A numbered label that says it names a question: in words (`Question 5`, `Q5.`), by its
    form (a row of a table of answers, `Part 5`), or as an outline heading numbered by its own
    label (`## 5`, `\\section{5}`: not counted in order; an answer's points are lines of its
    text). A bare `5.` opening a line is too often a point of an answer."""
    return mark.declared or WORDED.match(mark.raw) is not None or (
        mark.structural and not mark.by_order and mark.question is None and mark.level == 1)


def _names_one(unit: Unit) -> int:
    """The one question named by an outline heading's label (`## 7`) or by a sub-part label
    under a number (`(a)` after `## 4`), or -1. Too weak to move its block (`anchor`), the label
    still keeps the block after the questions before its own: a `## 7` after `## 3` is not
    carried back with `## 3` before answers to 4-6 moved there. A bare `4.` may be a point of the
    answer before it, and travels with it."""
    mark = unit.mark
    if (mark is None or not (mark.structural or mark.num is None) or unit.reliability < 1.0
            or not unit.label_scores):
        return -1
    named = [i for i, score in enumerate(unit.label_scores) if score >= SUBPART]
    return named[0] if len(named) == 1 else -1


def rubric_order(units: list[Unit]) -> list[int]:
    """A permutation of unit indices that puts clearly labelled blocks in rubric order.

    A block is a labelled unit and the paragraphs after it. An anchored block sorts by its
    question; any other block keeps the key of the block before it, so the notes and sub-parts
    around an answer travel with it, or, for an outline heading or a sub-part label naming a
    later question, that question's. With anchors already in order this is the identity.
    """
    blocks: list[tuple[int, list[int]]] = []
    key = -1
    for index, unit in enumerate(units):
        if unit.labelled or not blocks:
            anchored = anchor(unit)
            key = anchored if anchored is not None else max(key, _names_one(unit))
            blocks.append((key, [index]))
        else:
            blocks[-1][1].append(index)
    latest = -1
    for key, members in blocks:
        head = units[members[0]]
        if 0 <= key < latest and anchor(head) == key:
            head.moved_for = key  # answered after a later question
        latest = max(latest, key)
    ordered = sorted(range(len(blocks)), key=lambda b: blocks[b][0])  # stable
    return [i for b in ordered for i in blocks[b][1]]


def assign_in_rubric_order(units: list[Unit], n_questions: int) -> list[int | None]:
    """`assign` on the units reordered by `rubric_order`, returned in document order."""
    order = rubric_order(units)
    permuted = assign([units[i] for i in order], n_questions)
    out: list[int | None] = [None] * len(units)
    for position, index in enumerate(order):
        out[index] = permuted[position]
    return out


def runs_of(assignment: list[int | None], qi: int) -> list[list[int]]:
    """A question's units in document order, cut wherever another question's answer lies
    between two of them: an answer is one stretch of the document."""
    runs: list[list[int]] = []
    interrupted = True
    for index, assigned in enumerate(assignment):
        if assigned == qi:
            if interrupted:
                runs.append([])
            runs[-1].append(index)
            interrupted = False
        elif assigned is not None:
            interrupted = True
    return runs


# "(2 points) Copying in attention: ..." - the handout's wording, pasted in before the answer
_POINTS_MARK = re.compile(r"\(\s*\d{1,2}(?:\.\d)?\s*(?:points?|pts?|marks?)\s*\)", re.IGNORECASE)


def is_statement(text: str, unit: Unit) -> bool:
    """A paragraph that carries a handout's points mark near its start is the question itself."""
    return _POINTS_MARK.search(text, unit.start, min(unit.end, unit.start + 80)) is not None



def answer_start(unit: Unit, qi: int, keys: list[Path]) -> int:
    """Where the answer of question `qi` located at `unit` starts. A unit headed by a bare
    sub-part marker (`(a)`, `ii.`: no number of its own) that is none of the question's own
    labels (`keys`: question 1c's `(c)` is its label) opens the answer's first sub-part
    (Problem 3, then `(a) ...`): the marker stays in the answer, so its items still find `(a)`
    among their cues and the sub-answers count up from it."""
    mark = unit.mark
    if mark is None or mark.num is not None or not unit.label_scores \
            or unit.label_scores[qi] <= 0:
        return unit.start
    if mark.letter:
        own = any(key[2] == mark.letter.lower() for key in keys)
    elif mark.roman:
        own = any(key[3] == mark.roman.lower() for key in keys)
    else:
        return unit.start
    return unit.start if own else min(mark.start, unit.start)
