"""Grades below full credit beside words the grader did not read: the answer says something
that no item of the question recognises.

An item below full credit because nothing in the answer states its missing elements is sure
of that only as far as the grader understood the answer. The sentence encoder puts a correct
answer in plain words far from the reference ("put a middle row of units between input and
output, each squashing its sum through something bent like tanh" is a cosine of 0.22 from
"hidden layers with a non-linear activation combine several linear boundaries"), as far as a
wrong one, so the similarity that decides how sure the grade is cannot tell them apart. What
the grader can tell is whether it read the answer: a stretch of substance (four content words
of its own beyond the question's) that no item of the question credits, with an element or a
known wrong claim, is one it does not understand. Two cases go to a person, with the
machine's points as the suggestion:

- a zero for an item in whose part of the answer (its `topic`, its `subpart`) no item
  recognises anything, beside such a sentence there; a zero beside another item's idea, or a
  known wrong claim, in the sentences it reads keeps its confidence: the answer addresses
  something else. The answer to a sub-part of its own is on the item whatever it says, so
  there one content word of its own is substance ("(b) At evaluation we use all the neurons.",
  "(b) Evaluation: the layer is a no-op." beside a credited (a) were 0 at 0.9);
- a grade below full credit for an item that found one of its elements, where a clause of a
  credited sentence it reads is left over, none of the credit resting on it ("a lookup table
  with a trained row per slot, | so there is simply no row for slot 600 if training stopped at
  512" credited for the trained row): the answer is on the item, and the clause that continues
  the credited thought may state the element it misses; in the answer to its own sub-part, a
  sentence nothing credits may too ("(a) Each unit is kept with probability 1 - p and dropped
  otherwise;| kept units are scaled by 1/(1-p) ..." credited for the scaling). An item asking
  for any k of its elements reads a list: each named alternative is a piece (cut at commas,
  "and", "or", "+") and two content words of its own, one of them in the words of an
  alternative not credited, are substance ("sharded data parallel, and activation
  recomputation" credited for the sharding; not "mixed precision halves the bytes", which says
  what the credited one saves).

A finding outside the item's topic explains nothing: it is itself in doubt (`scoring._unsure`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from decimal import Decimal

from graders.written.config import element_statement
from graders.written.lexical import STOP_WORDS, stem
from graders.written.matching import PatternVerdict
from graders.written.meaning import clauses_of
from graders.written.scoring import UNSURE_CONFIDENCE, Decision, sentence_evidence
from graders.written.text import Sentence

# Content words of its own (beyond the question's) from which a stretch says something; in the
# answer to the item's own sub-part, one.
_OWN_WORDS = 4
_OWN_WORDS_IN_SUBPART = 1
_WORD = re.compile(r"[a-z]+")
_BREAK = re.compile(r"[,;:.!?()=]|->|\b(?:but|whereas|while|although|however|because|since|so|"
                    r"which|hence|thus|therefore|then)\b")
# The pieces of a list of alternatives, and the content words of its own that name one.
_LIST_BREAK = re.compile(r"[,;:()+&/]|->|\b(?:and|or|plus|also)\b")
_OWN_WORDS_IN_LIST = 2
Credits = dict[tuple[int, int], list[tuple[int, int]]]


def credited_spans(verdicts: Iterable[PatternVerdict | None]) -> Credits:
    """Per sentence some item of the question credits (on its topic), the spans of its `norm`
    that the credit rests on: a pattern's hit, a phrasing's clause, or the whole sentence."""
    credits: Credits = {}
    for verdict in verdicts:
        if verdict is None:
            continue
        found = [(f.sentence, f.hit.text if f.hit else f.meaning.clause if f.meaning else "")
                 for f in verdict.found.values() if not f.outside_topic]
        if verdict.contradiction is not None:
            wrong = verdict.contradiction
            found.append((wrong.sentence, wrong.hit.text if wrong.hit else ""))
        for sentence, text in found:
            start = sentence.norm.find(text) if text else -1
            span = (start, start + len(text)) if start >= 0 else (0, len(sentence.norm))
            credits.setdefault((sentence.start, sentence.end), []).append(span)
    return credits


def _stems(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text.lower()) if w not in STOP_WORDS and len(w) > 1}


def _pieces(sentence: Sentence, listing: bool = False) -> list[tuple[int, int]]:
    """The sentence's stretches between clause breaks, and its clauses as the phrasing matcher
    cuts them (`meaning.clauses_of`, which keeps "one can follow grammar while another tracks
    which pronoun refers to what" whole); with `listing`, also the items of a list."""
    text = sentence.norm
    pieces = _between(text, _BREAK) + (_between(text, _LIST_BREAK) if listing else [])
    for clause in clauses_of(sentence):
        start = text.find(clause)
        if start >= 0:
            pieces.append((start, start + len(clause)))
    return pieces


def _between(text: str, breaks: re.Pattern[str]) -> list[tuple[int, int]]:
    cuts = [0, *(x for m in breaks.finditer(text) for x in (m.start(), m.end())), len(text)]
    return list(zip(cuts[::2], cuts[1::2], strict=True))


def left_over(sentences: Sequence[Sentence], credits: Credits, prompt: str,
              whole: bool = False, words: int = _OWN_WORDS,
              listing: frozenset[str] | None = None) -> tuple[Sentence, str] | None:
    """The first stretch of substance no credit rests on: with `whole`, a sentence nothing
    credits; else a clause of a credited sentence that no credited span reaches into, or with
    `listing` (the word stems of the alternatives not credited), a list's item in them."""
    asked = _stems(prompt)
    for sentence in sentences:
        spans = credits.get((sentence.start, sentence.end))
        if (spans is None) != whole:
            continue
        text = sentence.norm
        for start, end in [(0, len(text))] if whole else _pieces(sentence, listing is not None):
            if any(s < end and start < e for s, e in spans or ()):
                continue
            own = _stems(text[start:end]) - asked
            if len(own) >= words and (listing is None or own & listing):
                return sentence, text[start:end].strip()
    return None


def doubt_unread(decision: Decision, verdict: PatternVerdict | None, max_points: Decimal,
                 sentences: Sequence[Sentence], credits: Credits, prompt: str,
                 offset_known: bool, subpart: bool = False, listing: bool = False) -> None:
    """Keep a grade below full credit under any review threshold in the two cases above
    (`subpart`: the item reads the answer to a sub-part of its own; `listing`: it asks for any
    k of its elements)."""
    if verdict is None or verdict.contradiction is not None or decision.points == max_points:
        return
    if verdict.found:
        found = left_over(sentences, credits, prompt)
        if found is None and subpart:
            found = left_over(sentences, credits, prompt, whole=True)
        if found is None and listing:
            missing = frozenset().union(*(_stems(element_statement(e)) for e in verdict.missing))
            found = left_over(sentences, credits, prompt, words=_OWN_WORDS_IN_LIST,
                              listing=missing)
        what = "A clause of the answer that no key idea was recognised in"
    elif decision.points == 0 and not any((s.start, s.end) in credits for s in sentences):
        found = left_over(sentences, credits, prompt, whole=True,
                          words=_OWN_WORDS_IN_SUBPART if subpart else _OWN_WORDS)
        what = "No key idea of the question was recognised in a sentence of the answer, which"
    else:
        return
    if found is None:
        return
    sentence, stretch = found
    decision.feedback.append(
        f"{what} may state this item's missing idea in other words ('{stretch[:120]}'); a "
        "grader should check it.")
    decision.evidence.append(sentence_evidence(
        sentence, "words no key idea of the question was recognised in", offset_known))
    decision.confidence = min(decision.confidence, UNSURE_CONFIDENCE)
