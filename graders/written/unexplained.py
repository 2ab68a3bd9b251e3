"""A zero the grader cannot explain: the answer says something, and no item of the question
recognises any of it.

An item graded zero because nothing in the answer states its elements is sure of that zero
only as far as the grader understood the answer. The sentence encoder puts a correct answer
in plain words far from the reference ("put a middle row of units between input and output,
each squashing its sum through something bent like tanh" is a cosine of 0.22 from "hidden
layers with a non-linear activation combine several linear boundaries"), as far as a wrong
one, so the similarity that decides how sure a zero is cannot tell them apart. What the
grader can tell is whether it read the answer at all: a sentence of substance (words of its
own beyond the question's) that no item of the question credits with an element or a known
wrong claim is a sentence the grader does not understand. A zero beside such a sentence,
in the part of the answer the item reads (its `topic`), goes to a person with the machine's
suggestion; a zero in an answer whose every sentence is accounted for (it states another
item's idea, or a known wrong claim) keeps its confidence.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from graders.written.lexical import STOP_WORDS, stem
from graders.written.matching import PatternVerdict
from graders.written.scoring import UNSURE_CONFIDENCE, Decision, sentence_evidence
from graders.written.text import Sentence

# Content words of its own (beyond the question's) from which a sentence says something.
_OWN_WORDS = 4
_WORD = re.compile(r"[a-z]+")


def credited_spans(verdicts: Iterable[PatternVerdict | None]) -> set[tuple[int, int]]:
    """The spans of the sentences some item of the question credits: with an element, or as
    a known wrong claim."""
    spans: set[tuple[int, int]] = set()
    for verdict in verdicts:
        if verdict is None:
            continue
        spans |= {(f.sentence.start, f.sentence.end) for f in verdict.found.values()}
        if verdict.contradiction is not None:
            wrong = verdict.contradiction.sentence
            spans.add((wrong.start, wrong.end))
    return spans


def _stems(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text.lower()) if w not in STOP_WORDS and len(w) > 1}


def unexplained_sentence(sentences: Sequence[Sentence], credited: set[tuple[int, int]],
                         prompt: str) -> Sentence | None:
    """The first sentence of substance that no item of the question credits."""
    asked = _stems(prompt)
    for sentence in sentences:
        if (sentence.start, sentence.end) in credited:
            continue
        if len(_stems(sentence.norm) - asked) >= _OWN_WORDS:
            return sentence
    return None


def doubt_unexplained_zero(decision: Decision, verdict: PatternVerdict | None,
                           sentences: Sequence[Sentence], credited: set[tuple[int, int]],
                           prompt: str, offset_known: bool) -> None:
    """Keep a zero below any review threshold when the item found nothing and the part of the
    answer it reads holds a sentence no item of the question recognises."""
    if (verdict is None or verdict.level != "none" or verdict.found or decision.points != 0
            or credited):
        return
    sentence = unexplained_sentence(sentences, credited, prompt)
    if sentence is None:
        return
    decision.feedback.append(
        "No key idea of the question was recognised in a sentence of the answer, which may "
        "state this item's idea in other words; a grader should check it.")
    decision.evidence.append(sentence_evidence(
        sentence, "a sentence no key idea of the question was recognised in", offset_known))
    decision.confidence = min(decision.confidence, UNSURE_CONFIDENCE)
