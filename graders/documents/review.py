"""Honest location: the best candidate for a question no label or content placed, and answers
that no grader can read (another language) sent to a human instead of scored as wrong.

`missing` is a promise that the document has no answer. When text that nothing else claims lies
where the question's answer would be (between the answers before and after it, in rubric order)
and no other question's label heads it, that text is the best candidate: it is graded at a low
location confidence, which sends its items to review. So is unclaimed text anywhere whose cues
name the question more than any other (a README's project description answering the design
question), and unclaimed prose that only mentions its cues makes the question unsure (named
for review, suggested 0) rather than missing.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import replace

from graders.documents.assign import Unit
from graders.documents.cues import compile_cues, found_cues
from graders.documents.model import LocatedAnswer
from graders.documents.strength import BY_CONTENT, BY_NEIGHBOUR, BY_STRAY, weak
from graders.rubric_model import Question

CANDIDATE_CONFIDENCE = 0.3
FOREIGN_CONFIDENCE = 0.3
_MIN_CANDIDATE = 40  # characters: a stray "None." or a page number is not an answer
_MATH = re.compile(r"\$\$.{0,4000}?\$\$|\$[^$\n]{0,400}\$", re.S)
_SAMPLE = 4000
# Answers of these kinds read alike: a derivation's sibling may hold prose and the reverse, but a
# reported value is never looked for in an explanation (nor code in either).
_KIND_FAMILY = {"prose": "text", "derivation": "text", "numeric": "value", "mixed": "value"}


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


STRAY_CONTENT = 1.0  # cue weight a stray passage needs (one cue no other question shares)
STRAY_CHARS = 8000  # the most text a stray candidate takes around its best paragraph


def _unclaimed(
    text: str, units: Sequence[Unit], qi: int, claimed: Sequence[int | None]
) -> Iterator[tuple[int, float, float]]:
    """(index, this question's cue weight, the most any other question's has) of every unit that
    no answer holds and no other label owns: text under a label belongs to that label (another
    question's, or one the rubric does not have), so only text before every label, or under
    this question's, is stray. A comment the rendered page hides (`<!-- ... -->`) is no text."""
    for i, unit in enumerate(units):
        if text.startswith("<!--", unit.start) and text[unit.start:unit.end].rstrip().endswith(
                "-->"):
            continue
        owner = unit if unit.mark is not None else unit.head
        if owner is not None and (not owner.label_scores or owner.label_scores[qi] <= 0):
            continue
        if claimed[i] is not None or not unit.content:
            continue
        own = unit.content[qi][0]
        others = max((c for q, (c, _) in enumerate(unit.content) if q != qi), default=0.0)
        yield i, own, others


def stray_candidate(
    text: str, question: Question, qi: int, units: Sequence[Unit],
    claimed: Sequence[int | None],
) -> LocatedAnswer | None:
    """Unclaimed text anywhere whose content names this question more than any other, for a
    question neither label nor order placed: an unlabelled answer written out of the rubric's
    order (a project description at the top of a README answering the design question).
    `claimed[i]`: the question whose answer holds unit i (None: no answer does; text trimmed
    off the start of an answer, before its label, is held by none).
    Graded as the best candidate and sent to review, never reported missing at full confidence.
    """
    best: int | None = None
    for i, own, others in _unclaimed(text, units, qi, claimed):
        if own >= STRAY_CONTENT and own > others and (
                best is None or own > units[best].content[qi][0]):
            best = i
    if best is None:
        return None
    low = high = best
    while (low > 0 and claimed[low - 1] is None and units[low].mark is None
           and units[best].end - units[low - 1].start <= STRAY_CHARS):
        low -= 1
    while (high + 1 < len(units) and claimed[high + 1] is None
           and units[high + 1].mark is None
           and units[high + 1].end - units[low].start <= STRAY_CHARS):
        high += 1
    start, end = units[low].start, units[high].end
    if len(text[start:end].strip()) < _MIN_CANDIDATE:
        return None
    cues = sorted({c for u in units[low:high + 1] for c in u.content[qi][1]})
    return weak(LocatedAnswer(
        question_id=question.id, text=text[start:end], start=start, end=end,
        confidence=CANDIDATE_CONFIDENCE, method="content",
        note=("no label names this question and no answer lies where order puts it; this "
              "unclaimed passage mentions " + ", ".join(cues[:6]) + " - a grader should check "
              "that it answers this question"),
    ), BY_STRAY)


def unlabelled_answers(
    text: str, questions: Sequence[Question], units: Sequence[Unit],
    claimed: Sequence[int | None], answers: dict[str, LocatedAnswer], missing: dict[str, str],
    only_handout: str, handout: str | None = None,
) -> dict[str, str]:
    """For each question still missing: a sibling's block or a stray passage as its weak
    answer (moved from `missing` to `answers`), else the reason it is not surely missing
    (question id -> unclaimed_mention). A question some handout editions do not ask is expected
    to be absent for them (unless the submission declared an edition that asks it), and one
    whose label holds `only_handout` text has said so itself."""
    unsure: dict[str, str] = {}
    for qi, question in enumerate(questions):
        reason = missing.get(question.id)
        placed = answers.get(question.id)
        if placed is not None and placed.method == "order" and question.cues and not any(
                True for _ in found_cues(placed.text, compile_cues(question.cues))):
            # a code question's gap text that does not name its code ("Here is my code for
            # questions 1-4:"): the program that names it is the better candidate
            answers[question.id] = shared_program(question, questions, answers) or placed
        if (reason is None or only_handout in reason
                or (question.handouts and handout not in question.handouts)):
            continue
        candidate = (sibling_candidate(question, questions, answers)
                     or shared_program(question, questions, answers)
                     or stray_candidate(text, question, qi, units, claimed))
        if candidate is not None:
            del missing[question.id]
            answers[question.id] = candidate
            continue
        mention = unclaimed_mention(text, question, qi, units, claimed)
        if mention:
            unsure[question.id] = mention
    return unsure


def unclaimed_mention(
    text: str, question: Question, qi: int, units: Sequence[Unit],
    claimed: Sequence[int | None],
) -> str:
    """What a grader should check before a question with no located answer counts as missing:
    the unclaimed passage that mentions its cues most (at least as much as any other
    question's), when one does; "" when the document has nothing about it. Such a passage is
    too weak to be graded as the answer (below STRAY_CONTENT, or tied with another question):
    it is named, never taken as the answer's text."""
    best: int | None = None
    for i, own, others in _unclaimed(text, units, qi, claimed):
        # a passage of another kind (no number for a numeric question, no code for a code
        # one) does not answer it, whatever words it shares
        if own <= 0 or own < others or units[i].kind[qi] < 0 or _rivalled(units[i], qi):
            continue
        if len(text[units[i].start:units[i].end].strip()) < _MIN_CANDIDATE:
            continue  # a heading or a stray line is not a passage
        if best is None or own > units[best].content[qi][0]:
            best = i
    if best is None:
        return ""
    unit = units[best]
    first = text.count("\n", 0, unit.start) + 1
    last = first + text.count("\n", unit.start, max(unit.start, unit.end - 1))
    lines = f"line {first} mentions" if last == first else f"lines {first}-{last} mention"
    cues = ", ".join(unit.content[qi][1][:4])
    return (f"no labelled answer to {question.id}; {lines} {cues} but no label there names "
            f"{question.id}: does this passage answer {question.id}?")


def _rivalled(unit: Unit, qi: int) -> bool:
    """Another question named as much as this one by words of its own: a passage about several
    questions (an introduction to the assignment), not one question's answer. A tie by shared
    cues ("positional encoding" asked about in two questions) is no rival."""
    own, mine = unit.content[qi][0], {c.casefold() for c in unit.content[qi][1]}
    return any(q != qi and score >= own and not {c.casefold() for c in found} <= mine
               for q, (score, found) in enumerate(unit.content))


def part_family(question_id: str) -> str:
    """Sub-parts of one part share the id before the first dot (1c.i and 1c.ii are 1c)."""
    return question_id.split(".", 1)[0].casefold()


def sibling_candidate(
    question: Question, order: Sequence[Question], answers: Mapping[str, LocatedAnswer]
) -> LocatedAnswer | None:
    """The block of a located sibling (see _related), for a question that nothing placed.

    Students often answer a later sub-part in an unlabelled paragraph under the earlier one's
    label (a second bullet under "(b)"); such text was claimed by the sibling, so the document
    may well hold this answer. Only a sibling whose answer reads alike counts (see _KIND_FAMILY);
    the nearest one before it is preferred, then the one after.
    """
    kind = _KIND_FAMILY.get(question.answer_kind, question.answer_kind)
    ids = [q.id for q in order]
    here = ids.index(question.id)
    located = [i for i, q in enumerate(order)
               if i != here and _related(question, q, kind) and q.id in answers
               and answers[q.id].start is not None]
    if not located:
        return None
    if kind == "value":
        # a run's value is looked for in another run's report only when that report names
        # the run: it mentions a cue of this question that the sibling's own cues lack
        located = [i for i in located
                   if _names_this_run(question, order[i], answers[ids[i]].text)]
        if not located:
            return None
    before = [i for i in located if i < here]
    nearest = max(before) if before else min(located)
    sibling = answers[ids[nearest]]
    return weak(LocatedAnswer(
        question_id=question.id,
        text=sibling.text,
        start=sibling.start,
        end=sibling.end,
        confidence=min(CANDIDATE_CONFIDENCE, sibling.confidence),
        method="order",
        label=sibling.label,
        note=(f"no label or content of its own; its answer may be in the block of its sibling "
              f"part {sibling.question_id} (graded here as the best candidate) - a grader "
              "should check"),
    ), BY_NEIGHBOUR.format(part=sibling.question_id))


def shared_program(
    question: Question, order: Sequence[Question], answers: Mapping[str, LocatedAnswer]
) -> LocatedAnswer | None:
    """For a code question nothing placed: the located code answer of another question whose
    text names this question's own cues (`class FeedForward` in the one program a student
    wrote for "questions 1-4"). Each code question runs its whole program, so one program may
    answer several; unlabelled, the share is weak (a person confirms)."""
    if question.answer_kind != "code" or not question.cues:
        return None
    for other in order:
        found = answers.get(other.id)
        if other.id == question.id or other.answer_kind != "code" or found is None \
                or found.start is None or not _names_this_run(question, other, found.text):
            continue
        return weak(LocatedAnswer(
            question_id=question.id, text=found.text, start=found.start, end=found.end,
            confidence=min(CANDIDATE_CONFIDENCE, found.confidence), method="content",
            label=found.label,
            note=(f"no label of its own; the program answering {other.id} names this "
                  "question's code (graded here as the best candidate) - a grader should "
                  "check")), BY_CONTENT)
    return None


def _names_this_run(question: Question, sibling: Question, text: str) -> bool:
    own = {c.casefold() for c in question.cues} - {c.casefold() for c in sibling.cues}
    distinct = [c for c in question.cues if c.casefold() in own]
    return bool(distinct) and any(True for _ in found_cues(text, compile_cues(distinct)))


def _related(question: Question, other: Question, kind: str) -> bool:
    """Siblings: sub-parts of one part (1c.i, 1c.ii) whose answers read alike; reported values
    (accuracies of several runs) are siblings across the whole part, because students report
    every run of it in one paragraph or table, and each item then picks its own run's value by
    the words around it."""
    if _KIND_FAMILY.get(other.answer_kind, other.answer_kind) != kind:
        return False
    if kind == "value" and question.part and other.part == question.part:
        return True
    return part_family(other.id) == part_family(question.id)


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


__all__ = [
    "flag_language", "gap_candidate", "label_names", "part_family", "script_share",
    "sibling_candidate", "stray_candidate", "unclaimed_mention", "unlabelled_answers",
]
