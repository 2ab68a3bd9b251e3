"""Signals that a grade the patterns decided rests on thin evidence, whichever way it went: the
grade then goes to a person, its points unchanged.

- a credited sentence that restricts its claim by a condition ("stacking linear layers is still
  linear only if the weights are tied", "... unless the heads share weights"): the condition may
  make a right statement wrong, or state exactly when it holds, which only a reader can tell;
- an answer that explains by analogy ("think of each layer as a stretch-and-rotate", "greedy is
  like always taking the steepest path uphill") graded zero: the similarity that decides how
  sure a zero is compares it with a definition, which an analogy does not resemble;
- a word-order example, two quoted word sequences that are each other's words in another order
  ("attention can't tell 'dog bites man' from 'man bites dog'"), in an answer below full credit:
  the example may state an idea (attention ignores order) that no pattern or phrasing reads.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from decimal import Decimal

from graders.written.matching import PatternVerdict
from graders.written.scoring import UNSURE_CONFIDENCE, Decision, sentence_evidence
from graders.written.text import Sentence

# A condition that restricts the claim of its sentence ("as long as" and a bare "provided" are
# more often a length or a participle: "sequences as long as 512", "the content provided").
CONDITION = re.compile(
    r"(?<![\w'’])(?:only\s+(?:if|when|whenever|in\s+case)|unless|provided\s+that|"
    r"on\s+(?:the\s+)?condition\s+that)(?![\w'’])", re.IGNORECASE)
# A quoted stretch of two to twelve words, in straight or typographic quotes.
_QUOTED = re.compile(r"(?:(?<![\w])'([^'\n]{3,120})'(?![\w])|\"([^\"\n]{3,120})\"|"
                     r"“([^”\n]{3,120})”|‘([^’\n]{3,120})’)")
_WORD = re.compile(r"[\w'’-]+")
# The words that announce an analogy.
ANALOGY = re.compile(
    r"(?<![\w'’])(?:think\s+of|imagine|analog(?:y|ies|ous)|metaphor|as\s+if|"
    r"(?:is|are|it'?s|it\s+is|works|acts|behaves)\s+(?:just\s+|a\s+bit\s+|kind\s+of\s+)?like)"
    r"(?![\w'’])", re.IGNORECASE)


def conditioned_credit(verdict: PatternVerdict) -> Sentence | None:
    """A sentence credited with an element that restricts its claim by a condition."""
    if verdict.level not in ("full", "partial"):
        return None
    for found in verdict.found.values():
        if CONDITION.search(found.sentence.text):
            return found.sentence
    return None


def _quoted_words(text: str) -> list[tuple[str, ...]]:
    out = []
    for match in _QUOTED.finditer(text):
        inner = next(g for g in match.groups() if g is not None)
        words = tuple(w.lower() for w in _WORD.findall(inner))
        if 2 <= len(words) <= 12:
            out.append(words)
    return out


def swapped_order_example(sentences: Sequence[Sentence]) -> Sentence | None:
    """A sentence quoting two word sequences made of the same words in another order (or the
    second such quote in the next sentence: "'the cat saw the dog'. And 'the dog saw the cat'")."""
    for index, sentence in enumerate(sentences):
        following = sentences[index + 1].text if index + 1 < len(sentences) else ""
        quoted = _quoted_words(sentence.text + " " + following)
        for first, words in enumerate(quoted):
            if any(sorted(words) == sorted(other) and words != other
                   for other in quoted[first + 1:]):
                return sentence
    return None


def analogy_for_zero(verdict: PatternVerdict, sentences: Sequence[Sentence]) -> Sentence | None:
    """A sentence announcing an analogy, in an answer that the patterns found nothing in."""
    if verdict.level != "none":
        return None
    return next((s for s in sentences if ANALOGY.search(s.text)), None)


def doubt(decision: Decision, verdict: PatternVerdict, sentences: Sequence[Sentence],
          max_points: Decimal, offset_known: bool) -> None:
    """Keep a pattern verdict below any review threshold when one of the signals above holds."""
    analogy = analogy_for_zero(verdict, sentences) if decision.points == 0 else None
    if analogy is not None:
        decision.feedback.append("The answer explains by an analogy, which may state an idea "
                                 "in other words; a grader should check it.")
        decision.evidence.append(sentence_evidence(analogy, "an analogy", offset_known))
    conditioned = conditioned_credit(verdict)
    if conditioned is not None:
        decision.feedback.append("A credited sentence restricts its claim by a condition; a "
                                 "grader should check that the claim holds as stated.")
        decision.evidence.append(sentence_evidence(
            conditioned, "states a condition on its claim", offset_known))
    example = swapped_order_example(sentences) if decision.points < max_points else None
    if example is not None:
        decision.feedback.append("The answer gives an example of the same words in another "
                                 "order, which may state an idea in other words; a grader "
                                 "should check it.")
        decision.evidence.append(sentence_evidence(
            example, "an example of the same words in another order", offset_known))
    if conditioned is not None or example is not None or analogy is not None:
        decision.confidence = min(decision.confidence, UNSURE_CONFIDENCE)
