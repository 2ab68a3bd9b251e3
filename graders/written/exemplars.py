"""Graded example answers (exemplars) as evidence: the points of the closest ones.

An instructor's overrides export as exemplars, so an item grows a set of graded answers; an
answer much like several of them probably deserves about what they got. The estimate is a
similarity-weighted vote of the closest examples, and how much it counts grows with how many
examples there are and how close the nearest is.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from graders.embedding import SentenceEmbedder
from graders.written.config import Exemplar, WrittenConfig
from graders.written.features import feature_targets, reference_features
from graders.written.settings import WrittenSettings
from graders.written.similarity import AnswerVectors
from graders.written.similarity_model import SimilarityModel
from graders.written.text import split_sentences

# Chosen among a few settings on a development split of the Mohler data (assignments 1-6;
# docs/benchmarks.md), never on the answers the benchmark reports.
NEIGHBOURS = 5  # the closest examples that vote
TEMPERATURE = 0.1  # cosine difference that divides a vote's weight by e
MAX_WEIGHT = 0.5  # the vote's share of the final score at most (the reference keeps the rest)
PRIOR = 0.5  # fewer examples count less: weight x n / (n + PRIOR)
CLOSE = (0.5, 0.8)  # nearest-example cosines between which the vote's weight ramps up
OFFSET_PRIOR = 4.0  # the examples' mean offset counts n / (n + OFFSET_PRIOR)
# Where the examples were chosen because the machine doubted them (active grading), the vote
# counts in proportion to the reference model's doubt about the answer's own points: fully at
# DOUBT_REFERENCE, less where the model is sure, more where it is not (at most MAX_DOUBT_WEIGHT).
# Chosen on Mohler 1-6 (0.2 and 0.3 tried), then checked on 7-12 (docs/active-grading.md).
DOUBT_REFERENCE = 0.3
MAX_DOUBT_WEIGHT = 0.9
_MEMO_LIMIT = 50_000


@dataclass(frozen=True)
class ExemplarEstimate:
    share: float  # points suggested by the examples, as a share of the item's points
    weight: float  # how far the estimate moves the reference score (0..1)
    nearest: int  # index of the closest example
    nearest_score: float
    count: int


def _ramp(value: float, low: float, high: float) -> float:
    return max(0.0, min(1.0, (value - low) / (high - low)))


def exemplar_estimate(vectors: AnswerVectors, exemplars: Sequence[Exemplar],
                      max_points: Decimal) -> ExemplarEstimate | None:
    if not exemplars or not vectors.units or max_points <= 0:
        return None
    texts = [e.text for e in exemplars]
    whole = vectors.whole_scores(texts)
    if whole is None:
        return None
    best = vectors.matrix @ vectors.vectors_of(texts).T  # every stretch against every example
    scores = np.maximum(whole, best.max(axis=0))
    order = np.argsort(-scores)[:NEIGHBOURS]
    top = float(scores[order[0]])
    votes = np.exp((scores[order] - top) / TEMPERATURE)
    shares = np.array([min(float(exemplars[i].points / max_points), 1.0) for i in order])
    share = float((votes * shares).sum() / votes.sum())
    count = len(exemplars)
    weight = MAX_WEIGHT * count / (count + PRIOR) * _ramp(top, *CLOSE)
    return ExemplarEstimate(share=share, weight=weight,
                            nearest=int(order[0]), nearest_score=top, count=count)


def weighted_by_doubt(weight: float, doubt: float) -> float:
    """The examples' vote's weight for an answer whose reference-only points the model doubts
    by `doubt` (1 - its confidence): an answer the reference model is sure of keeps most of its
    score, one it cannot place (a middling suggestion) takes most of it from the examples."""
    return min(MAX_DOUBT_WEIGHT, weight * max(0.0, doubt) / DOUBT_REFERENCE)


def reference_offset(embedder: SentenceEmbedder, config: WrittenConfig, max_points: Decimal,
                     prompt: str, model: SimilarityModel, settings: WrittenSettings,
                     memo: dict[tuple[object, ...], float]) -> float:
    """How far the examples' points lie above what the reference model suggests for them.

    Questions differ in how strictly they are graded and in how well the reference covers the
    answers; the graded examples measure that for this question. The mean difference (as a
    share of the points), shrunk toward 0 when there are few examples, is added to every
    answer's reference score. An example's suggestion is computed once (`memo`).

    That mean is the question's offset only when the examples are a sample of its answers; the
    operator option `written_exemplar_offset: false` leaves it out where they are chosen (active
    grading asks about the answers the machine is least sure of: their gaps are large and say
    little about the rest).
    """
    if not config.exemplars or max_points <= 0 or not settings.exemplar_offset:
        return 0.0
    if len(memo) > _MEMO_LIMIT:
        memo.clear()
    gaps = []
    for exemplar in config.exemplars:
        key = (config.reference, exemplar.text, prompt, model)
        if key not in memo:
            sentences = split_sentences(exemplar.text)
            vectors = AnswerVectors(embedder, sentences, settings.max_chars,
                                    settings.max_sentences)
            text = " ".join(s.text for s in sentences)
            vectors.prepare(feature_targets(config.reference, text, prompt))
            memo[key] = model.predict(reference_features(vectors, config.reference, text,
                                                         prompt))
        gaps.append(min(float(exemplar.points / max_points), 1.0) - memo[key])
    count = len(gaps)
    return sum(gaps) / count * count / (count + OFFSET_PRIOR)


def nearest_exemplar(embedder: SentenceEmbedder, answer: str,
                     exemplars: Sequence[Exemplar]) -> tuple[int, float] | None:
    """The example answer closest to the whole `answer` (cosine of unit vectors), and how
    close; None without examples or text. For staff feedback: which graded answer this one
    resembles most."""
    texts = [e.text for e in exemplars]
    if not texts or not answer.strip():
        return None
    vectors = embedder.embed([answer, *texts])
    scores = vectors[1:] @ vectors[0]
    index = int(np.argmax(scores))
    return index, float(scores[index])
