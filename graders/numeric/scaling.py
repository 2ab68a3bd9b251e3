"""Which factor answers a scaling item (`form: factor`): the value the answer concludes with, not
the intermediate values of its explanation ("4x as many patches, so attention costs 16x" -> 16).

A factor is the conclusion when a conclusion marker leads to it (`so`, `therefore`, `thus`, `→`,
`=`, `overall`, `in total`), when the item's cues name it (`cost`) or when it comes last; it is
working when the answer goes on from it to another factor, or when the item's avoid_cues name it
(`patches`). Values that disagree with the conclusion lower the confidence only when the
conclusion is not clear, and an answer whose last word on the matter is no number ("4x as many
patches, so the cost grows quadratically") is for a reader: never a confident grade.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graders.documents.cues import compile_cues, found_cues
from graders.notation import fold_width
from graders.numeric.config import NumericConfig
from graders.numeric.extract import Candidate
from graders.numeric.factors import FactorReading, factor_readings
from graders.numeric.select import Choice, close

_CONCLUDE = re.compile(
    r"\b(?:so|therefore|thus|hence|overall|in total|total|altogether|consequently|finally|"
    r"final|answer|result(?:s|ing)? in|which means|meaning|means|i\.e\.)\b"
    r"|→|⇒|=>|->|=|≈|∴|\\(?:Rightarrow|implies|therefore|to|approx)(?![A-Za-z])",
    re.IGNORECASE)
# a conclusion drawn in words (a bare `=` in the explanation that follows is not one)
_CONCLUDE_WORDS = re.compile(r"\b(?:so|therefore|thus|hence|overall|consequently|which means)\b"
                             r"|→|⇒|∴|\\(?:Rightarrow|implies|therefore)(?![A-Za-z])",
                             re.IGNORECASE)
# a conclusion stated in words rather than as a number: the factor before it was working
_UNNUMBERED = re.compile(r"\b(?:quadratic\w*|squared?|cubic\w*|linear\w*|exponential\w*)\b"
                         r"|\bO\s?\(", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.;\n]")
MAX_CONCLUSIONS = 20  # conclusions looked at after a factor
LEAD = 80  # how far back a conclusion marker may stand before its factor
CLAUSE = 60  # how far the words that label a factor reach
CLEAR_MARGIN = 2.0


@dataclass(frozen=True)
class _Scored:
    reading: FactorReading
    score: float
    cues: tuple[str, ...]
    label: str
    trailing: str


def _words_around(text: str, reading: FactorReading, previous_end: int, next_start: int
                  ) -> tuple[str, str, str]:
    lead = text[max(previous_end, reading.start - LEAD):reading.start]
    before = text[max(previous_end, reading.start - CLAUSE):reading.start]
    after = text[reading.end:min(next_start, reading.end + CLAUSE)]
    cut = re.search(r"[.;\n]|,\s|\b(?:so|therefore|thus|hence)\b", after)
    return lead, before, after[:cut.start()] if cut else after


def _score(text: str, readings: list[FactorReading], config: NumericConfig) -> list[_Scored]:
    cues, avoid = compile_cues(config.cues), compile_cues(config.avoid_cues)
    scored: list[_Scored] = []
    for i, reading in enumerate(readings):
        previous_end = readings[i - 1].end if i else 0
        following = readings[i + 1] if i + 1 < len(readings) else None
        next_start = following.start if following is not None else len(text)
        lead, before, after = _words_around(text, reading, previous_end, next_start)
        near = f"{before} {after}"
        hits = tuple(sorted(set(found_cues(near, cues))))
        score = 2.0 * bool(_CONCLUDE.search(lead)) + 2.0 * bool(hits) \
            - 3.0 * bool(any(True for _ in found_cues(near, avoid))) \
            - 3.0 * _in_condition(text, reading.start) - 3.0 * _negated(before)
        if following is None:
            score += 1.0
        elif _CONCLUDE.search(text, reading.end, following.start) \
                or _UNNUMBERED.search(text, reading.end, following.start):
            # the answer goes on from this factor to another ("4x as many patches, and attention
            # is quadratic in their number: 16x"): working
            score -= 2.0
        if i and _noted(text, readings[i - 1].end, reading.start):
            score -= 2.0  # a note in brackets after an earlier factor ("16x (4x the tokens)")
        scored.append(_Scored(reading, score, hits, " ".join(before.split()),
                              " ".join(after.split())))
    return scored


# a premise or a cause, not the conclusion: "if the patch size is halved, ...", "since the
# number of patches quadruples, ..."
_CONDITION = re.compile(r"\b(?:if|when|whenever|given|assuming|suppose|since|because)\b",
                        re.IGNORECASE)
_CONDITION_END = re.compile(r",|\bthen\b|\bso\b", re.IGNORECASE)


def _in_condition(text: str, start: int) -> bool:
    """The factor at `start` stands in an if-, since- or because-clause of its sentence."""
    sentence = re.split(r"[.;!?\n]\s", text[max(0, start - CLAUSE * 2):start])[-1]
    conditions = list(_CONDITION.finditer(sentence))
    return bool(conditions) and not _CONDITION_END.search(sentence, conditions[-1].end())


# a value the answer rejects: "16x, not 4x", "it does not double, it quadruples"
_NEGATION = re.compile(r"\b(?:not|never|rather than|instead of)\b|n't\b", re.IGNORECASE)


def _negated(before: str) -> bool:
    """The words before a factor, in its sentence and clause, deny it."""
    clause = re.split(r"[.;!?]\s|\n|\bbut\b|,\s(?=it\b)", before)[-1]
    return bool(_NEGATION.search(clause))


def _noted(text: str, previous_end: int, start: int) -> bool:
    """The factor at `start` stands in brackets opened after the previous factor, in the same
    clause ("16x (4x the tokens)"). A clause break or a conclusion word before the bracket makes
    it the conclusion, not a note ("2x as many patches, so cost (3x)", "Since 2x as many
    patches, cost (3x)")."""
    between = text[previous_end:start]
    if re.search(r"[.;!?]\s|\n", between) or between.count("(") <= between.count(")"):
        return False
    before_bracket = between[:between.rfind("(")]
    return not re.search(r"[,:;\u2014]", before_bracket) \
        and not _CONCLUDE_WORDS.search(before_bracket)


def _candidate(scored: _Scored, final: bool) -> Candidate:
    reading = scored.reading
    return Candidate(reading.value, reading.source, reading.start, reading.end, 0, final=final,
                     words=reading.words, label=scored.label, trailing=scored.trailing)


def _same(a: FactorReading, b: FactorReading, config: NumericConfig) -> bool:
    return close(a.value, float(b.value), config)


def _concluded_later(tail: str, config: NumericConfig) -> bool:
    """The answer goes on to a conclusion about the item with no number in it (`so the cost
    grows quadratically`)."""
    cues = compile_cues(config.cues)
    for count, m in enumerate(_CONCLUDE_WORDS.finditer(tail)):
        if count >= MAX_CONCLUSIONS:
            break
        end = _SENTENCE_END.search(tail, m.end())
        sentence = tail[m.end():end.start() if end else len(tail)]
        if _UNNUMBERED.search(sentence) or any(True for _ in found_cues(sentence, cues)):
            return True
    return False


def choose_factor(text: str, config: NumericConfig) -> Choice | None:
    """The factor the answer concludes with, its confidence, and the values that compete with it
    (rivals: the grader sends the item to review when they would score differently)."""
    folded = fold_width(text)
    readings = factor_readings(folded)
    if not readings:
        return None
    scored = _score(folded, readings, config)
    best = max(range(len(scored)), key=lambda i: (scored[i].score, i))
    final = scored[best]
    others = [s for s in scored if not _same(s.reading, final.reading, config)]
    confidence = 0.95 if final.cues or final.score >= 2 else 0.9
    rivals: list[_Scored] = []
    doubt = ""
    if others:
        closest = max(s.score for s in others)
        if final.score - closest < CLEAR_MARGIN:
            rivals = [s for s in others if final.score - s.score < CLEAR_MARGIN]
            confidence = 0.5
            shown = ", ".join(f"“{s.reading.source}”" for s in (final, *rivals))
            doubt = f"the answer states several factors ({shown}) and none is clearly its " \
                "conclusion"
        else:
            confidence = min(confidence, 0.9)
        expected = config.expected
        if isinstance(expected, int | float) and not close(final.reading.value, expected, config):
            # the explanation reached the expected factor and the answer then left it: which
            # one the student means is a reader's call, never a confident zero
            rivals += [s for s in others if s not in rivals and close(s.reading.value, expected,
                                                                        config)]
    if _concluded_later(folded[final.reading.end:final.reading.end + 2000], config):
        confidence = min(confidence, 0.5)
        doubt = f"the answer goes on from “{final.reading.source}” to a conclusion without a " \
            "number"
    return Choice((_candidate(final, True),), final.reading.value, final.cues, confidence,
                  tuple(_candidate(s, False) for s in rivals), doubt)
