"""Elements given as plain sentences (`phrasings`), matched against an answer by meaning.

A phrasing is compared with every sentence of the answer and with each clause of a sentence
that has several: the sentence encoder's cosine (all-MiniLM-L6-v2), and the share of the
phrasing's content words (stemmed) that the clause uses. A clause close in meaning may still
claim the opposite, which the encoder barely sees ("the softmax won't saturate" against "the
softmax saturates" is a cosine of about 0.9), so guards (three from `contradiction.py`) read the
words:

- **polarity**: the negations that govern the words the two share, counted with the implicit
  ones (prevent, avoid, stop, keep ... from, lack, fail, instead of, rather than); an odd
  difference turns the claim around, an even one keeps it. So a counterfactual states the
  concept: "without scaling the softmax would saturate" (one negation, on "scaling") states
  "scaling keeps the softmax from saturating" (one, "keep ... from"), and "the scale stops the
  softmax from saturating" states "without the scale the softmax saturates";
- **antonyms**: a word whose antonym the phrasing uses flips the claim once more ("the scores
  stay small" states "without it the scores are large");
- **swapped roles** around a directional word ("the key is compared with the query");
- **counts**: "several" (or "the k best") where the phrasing says "a single" one, or the
  reverse.

All of them, and the word counts, read a claim as `wording.plain_claim` writes it ("has no
notion of order" is "ignores order", "at once" is "simultaneously").

The elements of one question share their subject, and the encoder's cosine is dominated by the
subject ("greedy decoding picks the likeliest token" is 0.74 from "greedy decoding never
reconsiders a choice"): a stretch counts for an element only when no other element of the
question's items (its phrasings, or its statement) is closer to it (unless it uses every one of
the phrasing's own words), and a strong match shares some of the phrasing's own words (not the
question's; words of one class of ML terms count as one, `terms.py`).

A match is `strong` (the element is established, as a pattern would) or `weak` (a person should
look: the item goes to review with the machine's suggestion); the thresholds and how they were
chosen are in docs/rubrics.md ("Phrasings"). Known wrong claims given as phrasings
(`verdict.match_contradictions`) cap the credit from a strong match only, at a higher bar.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from graders.written.config import Element, WrittenConfig, element_statement
from graders.written.contradiction import NEGATORS, antonym_pair, role_swap, words_of
from graders.written.lexical import STOP_WORDS
from graders.written.matching import PhrasingMatch
from graders.written.patterns import CROSSING
from graders.written.quantities import other_quantity
from graders.written.similarity import AnswerVectors
from graders.written.terms import term
from graders.written.text import NON_PREFIX, Sentence
from graders.written.wording import one_or_several, plain_claim

# Cosine from which a clause states a phrasing (strong), and from which it may (weak, review).
# Chosen on the bundled rubrics' written items over the seeds and the CS224N corpus (the
# sentences their patterns credit against the element's phrasing, and the other sentences of
# the same answers) and on the D2L exercises' rubric rewritten with phrasings, where on-topic
# wrong sentences reached 0.78 (docs/rubrics.md, "Phrasings", gives the figures).
STRONG = 0.8
WEAK = 0.6
# For an element given by patterns, compared through its statement or the item's reference (a
# longer text than a phrasing, so its cosines run lower): from here a missed paraphrase sends the
# item to review. Never points: patterns decide such an element.
REVIEW_ONLY = 0.5
# A stretch below `WEAK` that uses this share of a phrasing's own words may state it in other
# words the encoder sees dimly ("takes the top-scoring token at each position" for "picks the
# most probable token at each step", cosine 0.54): from `REVIEW_ONLY` it is a weak match too.
WEAK_WITH_WORDS = 0.5
# And one that uses nearly all of them (at least three), from a dimmer cosine still: short
# answers typed fast read far from a phrasing ("greedy just takes the best word each time" is
# 0.48 from "greedy decoding picks the most probable token at each step", three of its four
# own words there). A weak match: a person decides, never points.
DIM = 0.4
DIM_WORDS = 0.75
DIM_MIN_WORDS = 3
# A strong match also shares some of the phrasing's own words (its content words that are not
# the question's: "Attention layers is constructed." is 0.78 from "attention becomes uniform
# and layers become redundant" and shares none of "becomes uniform ... redundant"); with most
# of them, a slightly lower cosine is strong.
WORDS_FOR_STRONG = 0.34
STRONG_WITH_WORDS = 0.72
MOST_WORDS = 0.6
# A clause that uses every one of the phrasing's own content words (at least this many; a
# term counts as any of its class, `terms.py`) states it from a lower cosine: on the subject,
# saying the same things in fewer or other words ("It is a fixed function." for "sinusoidal
# encodings are a fixed function of the position").
ALL_WORDS_COSINE = 0.5
ALL_WORDS_MIN = 2
# A known wrong claim given by phrasings caps the credit from a strong match that uses this
# share of the phrasing's content words (the question's included), or all of them from
# `STRONG_WITH_WORDS`.
WRONG_WORDS = 0.75
# A clause of fewer content words than this is not compared on its own (its sentence is).
_MIN_CLAUSE_WORDS = 2
_MAX_CLAUSES = 6  # per sentence (bounded work on hostile text)
_CLAUSE_BREAK = re.compile(
    r"\s*(?:[;:]|,\s*(?=(?:but|whereas|while|although|so|because|since|which|and|"
    r"for (?:example|instance)|such as)\b|e\.g\.|i\.e\.)|"
    r"\s(?=(?:but|whereas|although|because|since|so that|so|hence|thus|therefore|"
    r"and (?:it|they|this|these|those|we|its|their|a|an|the|each|every|never|not))\s))\s*",
    re.IGNORECASE)
# A clause's leading connective says how it relates to the one before, not what it claims.
_LEADING = re.compile(r"^(?:but|whereas|while|although|so that|so|because|since|which|and|"
                      r"hence|thus|therefore)\s+", re.IGNORECASE)
_IMPLICIT_WORDS = ("prevent", "avoid", "stop", "lack", "fail", "keep", "protect")
_IMPLICIT_NEGATION = re.compile(
    r"\b(?:prevent\w*|avoid\w*|stop\w*|lack\w*|fail\w*\s+to|instead of|rather than|"
    r"keep\w*(?:\s+\w+){1,3}\s+from|protect\w*(?:\s+\w+){0,3}\s+(?:from|against))\b",
    re.IGNORECASE)


# A comma also ends a clause that says a claim of its own: a comma splice ("XOR is not linearly
# separable, a perceptron only draws one line") or a note's list ("fixed sin/cos, no params,
# works for any length"). Not in a sentence that opens on a condition or a concession ("if
# the layers were linear, the network would be linear"), whose parts claim nothing alone.
_COMMA = re.compile(r"\s*,\s*")
_CONDITIONAL = re.compile(
    r"^\W*(?:if|when|whenever|unless|without|with|once|although|though|even|while|whereas|"
    r"since|because|as|after|before|whether|given|assuming|suppose|in\s+case)\b", re.IGNORECASE)
_FRONTED = re.compile(r"\b(?:instead of|rather than)\b[^,;:]{0,160},\s*", re.IGNORECASE)


@dataclass(frozen=True)
class _Stretch:
    sentence: Sentence
    text: str


def clauses_of(sentence: Sentence) -> list[str]:
    """The sentence's clauses of a few content words each (none when it has only one)."""
    return list(_clauses(sentence.norm))


# Each item of a question splits the same sentences, and every answer of a table is split again
# for each item.
@lru_cache(maxsize=50_000)
def _clauses(norm: str) -> tuple[str, ...]:
    text = norm[:2000]
    # "Instead of adding it to the embeddings, it rotates the query": the phrase's negation is
    # its own, what follows its comma affirms.
    fronted = _FRONTED.search(text)
    pieces = [text[:fronted.end()].rstrip(", "), text[fronted.end():]] if fronted else [text]
    parts = [_LEADING.sub("", p.strip()) for piece in pieces for p in _CLAUSE_BREAK.split(piece)
             if p and p.strip()]
    if not _CONDITIONAL.match(text):
        parts += [c for p in parts for c in _COMMA.split(p)[1:]
                  if _COMMA.search(p) and not _CONDITIONAL.match(p)]
        parts += [p.split(",")[0] for p in parts if "," in p]
    kept = list(dict.fromkeys(
        p for p in parts if len(_content(p)) >= _MIN_CLAUSE_WORDS and p != text))[:_MAX_CLAUSES]
    return tuple(kept) if len(kept) > 1 else ()


def stretches_of(sentences: Sequence[Sentence]) -> list[_Stretch]:
    out: list[_Stretch] = []
    for sentence in sentences:
        out.append(_Stretch(sentence, sentence.norm))
        out += [_Stretch(sentence, c) for c in clauses_of(sentence)]
    return out


def _texts(element: Element) -> tuple[str, ...]:
    return element.phrasings or (element_statement(element),)


def _review_texts(element: Element, config: WrittenConfig) -> tuple[str, ...]:
    """What a missed paraphrase of an element is looked for by: its phrasings; for an element
    given by patterns, its statement or label, and failing both (an id such as `limit` says
    nothing) the item's reference answer."""
    if element.phrasings or element.statement or element.label or not config.reference:
        return _texts(element)
    return tuple(config.reference)


def element_texts(config: WrittenConfig) -> list[str]:
    """What each element says: its phrasings, or its statement (a rival for the others)."""
    return [t for e in config.elements for t in _texts(e)]


def meaning_targets(config: WrittenConfig, sentences: Sequence[Sentence],
                    found: Iterable[str], rivals: Sequence[str] = ()) -> list[str]:
    """The texts to embed when a phrased element is not yet found: every element's phrasings
    (or statement), the other items' (`rivals`), then the answer's sentences and clauses."""
    done = set(found)
    wrong = [t for c in config.phrased_contradictions for t in c.phrasings]
    if all(e.id in done for e in config.elements) and not wrong:
        return []
    review = [t for e in config.elements if e.id not in done for t in _review_texts(e, config)]
    # The sentences themselves are the answer's units, encoded already (`AnswerVectors`).
    return element_texts(config) + review + wrong + list(rivals) + [
        c for sentence in sentences for c in clauses_of(sentence)]


@lru_cache(maxsize=50_000)
def _content(text: str) -> frozenset[str]:
    # A term counts as any other of its class ("trained" is "learned", `terms.py`).
    # "non-linear", "non linear" and "nonlinear" are one word; so is each of
    # `wording.PHRASES`, and a negated absence is "ignores" (`wording.plain_claim`).
    joined = NON_PREFIX.sub("non", plain_claim(text))
    return frozenset(term(w.key) for w in words_of(joined) if w.text not in STOP_WORDS)


def question_words(prompt: str) -> frozenset[str]:
    return _content(prompt)


def overlap(phrasing: str, clause: str, demoted: frozenset[str] = frozenset()) -> float:
    """The share of the phrasing's own content words (stemmed; not the question's) in the
    clause (all its content words when every one is the question's)."""
    wanted = (_content(phrasing) - demoted) or _content(phrasing)
    return len(wanted & _content(clause)) / len(wanted) if wanted else 0.0


def content_words(text: str) -> frozenset[str]:
    """The content words of `text`, stemmed, by term class (as `overlap` counts them)."""
    return _content(text)


def shared_words(text: str, other: str, demoted: frozenset[str] = frozenset()) -> int:
    """How many content words (stemmed, by term class; not `demoted`) two texts share."""
    return len((_content(text) & _content(other)) - demoted)


def _negations(text: str, shared: frozenset[str]) -> int:
    # A negation counts once on the run of words it governs when one of them is shared ("not
    # linearly separable" is one), and on an implicit negation ("does not keep the softmax from
    # saturating" is two: it says the softmax saturates).
    # (Counted at whichever word of the run is shared: "not linearly separable" shares only
    # "separable" with "cannot be split".)
    governed, run_counted = 0, False
    for w in words_of(text):
        if not w.negated:
            run_counted = False
            continue
        if not run_counted and (term(w.key) in shared or w.text.startswith(_IMPLICIT_WORDS)):
            governed += 1
            run_counted = True
    return governed + len(_IMPLICIT_NEGATION.findall(text[:2000]))


# The negations of a verb or adjective (`contradiction.NEGATORS`) and the quantifiers.
# Words after a negation within which a crossing word makes it a negation of going past.
_CROSSING_WORDS = 4
_QUANTIFIERS = frozenset({"no", "none", "nothing", "nobody", "neither", "nor"})
_ANY_NEGATION = re.compile(
    r"\b(?:" + "|".join(sorted(NEGATORS | _QUANTIFIERS)) + r"|\w+n['’]t)\b", re.IGNORECASE)


def any_negations(text: str) -> int:
    """Every negation in the text, quantifiers ("no amount of data") and implicit ones
    included, whatever it governs: a wrong claim caps only a stretch negated as it is. A
    negation of going past a limit ("can't handle positions past the max length") states the
    limit and is not counted (as `patterns.is_negated` reads it)."""
    text = plain_claim(text)
    crossing = sum(1 for m in _ANY_NEGATION.finditer(text)
                   if CROSSING.search(" ".join(text[m.end():].split()[:_CROSSING_WORDS])))
    return (len(_ANY_NEGATION.findall(text)) - crossing
            + len(_IMPLICIT_NEGATION.findall(text)))


@lru_cache(maxsize=50_000)
def turned_around(clause: str, phrasing: str) -> str | None:
    """Why the clause claims the opposite of the phrasing, or None when it does not."""
    clause, phrasing = plain_claim(clause), plain_claim(phrasing)
    shared = _content(clause) & _content(phrasing)
    flips = (_negations(clause, shared) - _negations(phrasing, shared)) % 2
    antonym = antonym_pair(clause, phrasing)
    if antonym is not None:
        flips ^= 1
    if flips:
        return (f"'{antonym[0]}' where the phrasing says '{antonym[1]}'" if antonym
                else "a negation the phrasing does not have (or the reverse)")
    counted = one_or_several(clause, phrasing)
    if counted is not None:
        return counted
    swapped = role_swap(clause, phrasing)
    if swapped is not None:
        return f"'{swapped[0]}' and '{swapped[1]}' swapped around"
    return None


def answer_stretches(vectors: AnswerVectors, sentences: Sequence[Sentence]
                      ) -> tuple[list[_Stretch], np.ndarray]:
    """The sentences compared by similarity (prose, within the budget), their clauses, and
    their vectors."""
    rows = {u.sentences[0]: i for i, u in enumerate(vectors.units) if len(u.sentences) == 1}
    stretches = [s for s in stretches_of(sentences) if s.sentence in rows]
    if not stretches:
        return [], np.zeros((0, 0))
    return stretches, np.stack([
        vectors.matrix[rows[s.sentence]] if s.text == s.sentence.norm
        else vectors.vectors_of([s.text])[0] for s in stretches])


def closest_other(vectors: AnswerVectors, clause_vectors: np.ndarray, others: Sequence[str]
                   ) -> np.ndarray:
    if not others:
        return np.full(len(clause_vectors), -1.0)
    closest: np.ndarray = (clause_vectors @ vectors.vectors_of(list(others)).T).max(axis=1)
    return closest


def is_strong(cosine: float, shared: float, own: int = 0) -> bool:
    """A strong match: close in meaning with some of the phrasing's own words, a little less
    close with most of them, or on the subject with every one of them (at least two)."""
    return (cosine >= STRONG and shared >= WORDS_FOR_STRONG) or (
        cosine >= STRONG_WITH_WORDS and shared >= MOST_WORDS) or (
        cosine >= ALL_WORDS_COSINE and shared >= 1.0 and own >= ALL_WORDS_MIN)


def match_phrasings(config: WrittenConfig, vectors: AnswerVectors,
                    sentences: Sequence[Sentence], found: Iterable[str], prompt: str = "",
                    rivals: Sequence[str] = ()) -> dict[str, PhrasingMatch]:
    """For each element not in `found`, its best match in the answer (strong or weak), or
    nothing when no stretch comes within `WEAK` without turning the phrasing around. An
    element the rubric gives only patterns for is compared through its statement (or label),
    the instructor's own plain words, and such a match is never strong: patterns decide that
    element, and a paraphrase they miss sends the item to a person instead of a confident 0."""
    done = set(found)
    elements = [e for e in config.elements if e.id not in done]
    if not elements:
        return {}
    stretches, clause_vectors = answer_stretches(vectors, sentences)
    if not stretches:
        return {}
    demoted = question_words(prompt)
    out: dict[str, PhrasingMatch] = {}
    for element in elements:
        texts = _review_texts(element, config)
        scores = clause_vectors @ vectors.vectors_of(texts).T
        closer = closest_other(vectors, clause_vectors, [
            t for e in config.elements if e.id != element.id for t in _texts(e)] + list(rivals))
        best: PhrasingMatch | None = None
        for row, col in zip(*np.nonzero(scores >= DIM), strict=True):
            stretch, phrasing = stretches[int(row)], texts[int(col)]
            cosine = float(scores[row, col])
            shared = overlap(phrasing, stretch.text, demoted)
            own = len(_content(phrasing) - demoted)
            if cosine < REVIEW_ONLY and not (
                    element.phrasings and shared >= DIM_WORDS and own >= DIM_MIN_WORDS):
                continue
            if element.phrasings and cosine < WEAK and shared < WEAK_WITH_WORDS:
                continue
            # Another element of the item says this stretch better, unless it uses every one
            # of this phrasing's own words: the match then never counts, but a clause may state
            # two ideas ("fixed sines, need no training and work for longer sequences"), so a
            # person checks it when it would change the points.
            shadowed = closer[row] > scores[row].max() and not (
                shared >= 1.0 and own >= ALL_WORDS_MIN)
            if turned_around(stretch.text, phrasing) is not None:
                continue
            # A phrasing that names a quantity is not established by a stretch naming only
            # others ("as large as 4" for "at most 0.25"): the encoder hardly reads digits.
            strong = (bool(element.phrasings) and not shadowed and is_strong(cosine, shared, own)
                      and not other_quantity(stretch.text, phrasing))
            match = PhrasingMatch(element.id, phrasing, stretch.sentence, stretch.text,
                                  cosine, shared, strong)
            if best is None or (match.strong, cosine) > (best.strong, best.cosine):
                best = match
        if best is not None:
            out[element.id] = best
    return out
