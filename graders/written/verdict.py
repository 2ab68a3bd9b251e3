"""An item's verdict by meaning: the phrasings' strong matches (`meaning.match_phrasings`), the
known wrong claims given by phrasings that the answer states, and the doubts that send a grade
to a person (weak matches, a wrong claim the answer may state)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from decimal import Decimal

import numpy as np

from graders.written.config import WrittenConfig
from graders.written.matching import (
    DENIED_CLAIM,
    ContradictionFound,
    PatternVerdict,
    PhrasingMatch,
    found_in,
    pattern_verdict,
)
from graders.written.meaning import (
    STRONG,
    STRONG_WITH_WORDS,
    WRONG_WORDS,
    answer_stretches,
    any_negations,
    closest_other,
    element_texts,
    match_phrasings,
    overlap,
    turned_around,
)
from graders.written.similarity import AnswerVectors
from graders.written.text import Sentence


def match_contradictions(config: WrittenConfig, vectors: AnswerVectors,
                         sentences: Sequence[Sentence], rivals: Sequence[str] = ()
                         ) -> ContradictionFound | None:
    """The costliest known wrong claim given by phrasings that a stretch of the answer states:
    a strong match (as for an element) that does not turn the phrasing around, and that no
    element of the question (this item's, or `rivals`, the right statements) says better. A
    weaker resemblance never caps: a right answer close in words to a wrong claim keeps its
    credit."""
    wrong = config.phrased_contradictions
    if not wrong:
        return None
    stretches, clause_vectors = answer_stretches(vectors, sentences)
    if not stretches:
        return None
    closer = closest_other(vectors, clause_vectors, element_texts(config) + list(rivals))
    worst: ContradictionFound | None = None
    for contradiction in wrong:
        texts = contradiction.phrasings
        scores = clause_vectors @ vectors.vectors_of(texts).T
        for row, col in zip(*np.nonzero(scores >= STRONG_WITH_WORDS), strict=True):
            cosine = float(scores[row, col])
            stretch, phrasing = stretches[int(row)], texts[int(col)]
            if closer[row] >= cosine or turned_around(stretch.text, phrasing) is not None:
                continue
            if any_negations(stretch.text) != any_negations(phrasing):
                continue  # "no amount of data lets it learn XOR": a quantifier's negation too
            # A wrong claim differs from the right one in a word or two, which may be the
            # question's own ("beam search is greedy"): its words are all counted, and most of
            # them must be there.
            shared = overlap(phrasing, stretch.text)
            if not (cosine >= STRONG and shared >= WRONG_WORDS) and shared < 1:
                continue
            if worst is None or contradiction.points < worst.contradiction.points:
                worst = ContradictionFound(contradiction, stretch.sentence, meaning=PhrasingMatch(
                    "", phrasing, stretch.sentence, stretch.text, cosine, shared, True))
            break
    return worst


def doubted_contradiction(config: WrittenConfig, vectors: AnswerVectors,
                          sentences: Sequence[Sentence], verdict: PatternVerdict,
                          max_points: Decimal | None = None) -> PhrasingMatch | None:
    """A stretch that may state a known wrong claim, or deny one, where the claim's phrasing
    does not decide (`match_contradictions` did not cap), and where it would change the
    points: two signals disagree, so a person decides. Three kinds:

    - a stretch below the capping bar that also turns one of the item's elements around ("the
      hidden layer is linear, so together they form a more powerful linear model": "the hidden
      layer is linear" against "the hidden layers introduce non-linearity", an element the
      answer is not credited with);
    - a near miss below full credit: most of the claim's words, close in meaning, below the
      bar only by its cosine ("beam search keeps k hypotheses but that is only to make
      decoding faster" for "beam search is faster than greedy decoding");
    - a denial, in a sentence that earned no element: a stretch that turns a wrong claim around
      says its opposite, which the rubric's right ideas are ("sinusoidal PE is not learned, and
      it is not limited to the training length"), when the answer is below full credit.
    """
    wrong = config.phrased_contradictions
    if not wrong:
        return None
    stretches, clause_vectors = answer_stretches(vectors, sentences)
    if not stretches:
        return None
    mine = [t for e in config.elements if e.id not in verdict.found for t in e.phrasings]
    element_scores = clause_vectors @ vectors.vectors_of(mine).T if mine else None
    credited = {f.sentence for f in verdict.found.values()}
    below_full = max_points is not None and verdict.points < max_points
    for contradiction in wrong:
        costs = contradiction.points < verdict.points
        if not costs and not below_full:
            continue
        texts = contradiction.phrasings
        scores = clause_vectors @ vectors.vectors_of(texts).T
        for row, col in zip(*np.nonzero(scores >= STRONG_WITH_WORDS), strict=True):
            stretch, phrasing = stretches[int(row)], texts[int(col)]
            cosine = float(scores[row, col])
            shared = overlap(phrasing, stretch.text)
            turned = turned_around(stretch.text, phrasing) is not None or \
                any_negations(stretch.text) != any_negations(phrasing)
            if turned:
                if below_full and shared >= WRONG_WORDS and stretch.sentence not in credited:
                    return PhrasingMatch(DENIED_CLAIM, phrasing, stretch.sentence,
                                         stretch.text, cosine, shared, False)
                continue
            if not costs:
                continue
            denied = element_scores is not None and any(
                element_scores[row, k] >= STRONG_WITH_WORDS
                and turned_around(stretch.text, mine[k]) is not None for k in range(len(mine)))
            # (an element may be closer: the stretch states both, which only a reader sorts;
            # beside full credit the clause is rather the right idea said near the wrong one,
            # "sinusoidal encodings are fixed and extrapolate to longer sequences")
            near = shared >= WRONG_WORDS and below_full
            if denied or near:
                return PhrasingMatch("", phrasing, stretch.sentence, stretch.text, cosine,
                                     shared, False)
    return None


def _capped(verdict: PatternVerdict, wrong: ContradictionFound | None) -> PatternVerdict:
    """The verdict with a wrong claim found by meaning, when it costs more than the verdict's."""
    if wrong is None or wrong.contradiction.points > verdict.points:
        return verdict
    return replace(verdict, points=wrong.contradiction.points, level="contradiction",
                   contradiction=wrong)


def meaning_verdict(config: WrittenConfig, max_points: Decimal, vectors: AnswerVectors,
                    read: Sequence[Sentence], sentences: Sequence[Sentence],
                    verdict: PatternVerdict, prompt: str = "", rivals: Sequence[str] = ()
                    ) -> tuple[PatternVerdict, list[PhrasingMatch]]:
    """The verdict with the phrasings' strong matches, and the weak matches that would change
    its points (the grade then goes to a person, `scoring`).

    Weak matches never count: on a rubric written for another homework (the development
    corpus's d2l exercises, rewritten with phrasings) most matches between 0.58 and the strong
    bar were wrong, and counting them in the suggestion put 13 of 81 answered items out of
    range.
    """
    matches = match_phrasings(config, vectors, read, verdict.found, prompt, rivals)
    strong = {k: m for k, m in matches.items() if m.strong}
    sure = pattern_verdict(config, max_points, read,
                           found_in(config, read, sentences, strong)) if strong else verdict
    wrong = match_contradictions(config, vectors, read, rivals)
    sure = _capped(sure, wrong)
    weak = [m for m in matches.values() if not m.strong]
    doubted = None if wrong is not None else doubted_contradiction(config, vectors, read, sure,
                                                                   max_points)
    if doubted is not None:
        weak.append(doubted)
    if not weak:
        return sure, []
    every = _capped(pattern_verdict(config, max_points, read,
                                    found_in(config, read, sentences, matches)), wrong)
    if doubted is not None:
        return sure, weak
    return (sure, []) if every.points == sure.points else (sure, weak)
