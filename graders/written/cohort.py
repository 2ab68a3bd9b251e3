"""The cohort: all students' answers to the same question, as evidence without any human grade.

When a whole table of answers (or a bulk regrade) is graded at once, every answer to a question
is known before any is decided. Two numbers from the cohort are used by the shipped calibration
(`calibration.json`, section `cohort`), both from each answer's whole-answer vector (the same
all-MiniLM-L6-v2 vector the reference features use):

- `knn`: the mean cosine with the answer's `NEIGHBOURS` closest peers (itself left out once):
  an answer that several classmates gave in nearly the same words is rarely misjudged;
- `centre`: the cosine with the normalised mean of the cohort's vectors: how typical the answer
  is of what the class wrote.

Neither looks at a grade or at the reference: it is still reference-only grading. The features
depend on the cohort as a set (row order does not matter), and a cohort smaller than `MIN_SIZE`
is not used: the answer is graded by the per-answer model, exactly as for a single upload.
Chosen on Mohler assignments 1-6 only (cross-validated by assignment; docs/benchmarks.md).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from graders.embedding import SentenceEmbedder
from graders.written.settings import WrittenSettings
from graders.written.similarity import AnswerVectors
from graders.written.text import split_sentences

COHORT_KEY = "written_cohorts"
NEIGHBOURS = 3
MIN_SIZE = 5  # answers with prose; a smaller cohort says too little about its peers
# Distinct answers kept as peers at most (those with the smallest digests: a sample that does
# not depend on row order), so an answer's features cost at most this many cosines.
MAX_PEERS = 2000
COHORT_FEATURES = ("knn", "centre")


@dataclass
class Cohort:
    """One question's answers (whole-answer vectors, normalised), keyed by answer text."""

    members: dict[str, int] = field(default_factory=dict)  # text -> how many gave it
    _vectors: dict[str, NDArray[np.float32]] = field(default_factory=dict)
    _peers: tuple[NDArray[np.float64], NDArray[np.int64], list[str]] | None = None
    _centre: NDArray[np.float64] | None = None
    _memo: dict[str, dict[str, float] | None] = field(default_factory=dict)

    def add(self, text: str, vector: NDArray[np.float32] | None) -> None:
        if vector is None:
            return
        self.members[text] = self.members.get(text, 0) + 1
        self._vectors[text] = vector
        self._peers = self._centre = None
        self._memo.clear()

    @property
    def size(self) -> int:
        return sum(self.members.values())

    def _prepared(self) -> tuple[NDArray[np.float64], NDArray[np.int64], list[str],
                                 NDArray[np.float64]]:
        if self._peers is None or self._centre is None:
            # Sorted, so that the sums (and so the features) do not depend on row order.
            texts = sorted(self.members)
            counts = np.array([self.members[t] for t in texts], dtype=np.float64)
            matrix = np.stack([self._vectors[t] for t in texts]).astype(np.float64)
            mean = counts @ matrix
            self._centre = mean / max(float(np.linalg.norm(mean)), 1e-12)
            if len(texts) > MAX_PEERS:
                kept = sorted(texts, key=_digest)[:MAX_PEERS]
                texts = sorted(kept)
                matrix = np.stack([self._vectors[t] for t in texts]).astype(np.float64)
            self._peers = (matrix, np.array([self.members[t] for t in texts], dtype=np.int64),
                           texts)
        return (*self._peers, self._centre)

    def features(self, text: str, vector: NDArray[np.float32]) -> dict[str, float] | None:
        """`knn` and `centre` of an answer with this whole-answer vector; None when the cohort
        is too small to say anything (then the per-answer model grades)."""
        if text in self._memo:
            return self._memo[text]
        found = self._features(text, vector)
        self._memo[text] = found
        return found

    def _features(self, text: str, vector: NDArray[np.float32]) -> dict[str, float] | None:
        if self.size < MIN_SIZE:
            return None
        matrix, counts, texts, centre = self._prepared()
        cosines = matrix @ vector.astype(np.float64)
        repeated = np.repeat(cosines, counts)  # one cosine per peer, duplicates included
        if text in self.members and (len(texts) == len(self.members) or text in set(texts)):
            # The answer itself is one of the peers: leave it out once.
            repeated = np.delete(repeated, int(np.argmax(repeated)))
        if repeated.size == 0:
            return None
        top = np.sort(repeated)[-NEIGHBOURS:]
        return {"knn": round(float(top.mean()), 6),
                "centre": round(float(centre @ vector.astype(np.float64)), 6)}


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=8).digest()


def whole_vector(vectors: AnswerVectors) -> NDArray[np.float32] | None:
    """The answer's whole-answer vector (its longest compared stretch), None without prose."""
    if not vectors.units:
        return None
    vector: NDArray[np.float32] = vectors.matrix[vectors.longest]
    return vector


def build_cohorts(embedder: SentenceEmbedder, answers: Iterable[tuple[str, str]],
                  settings: WrittenSettings, batch: int = 512) -> dict[str, Cohort]:
    """The cohorts of these `(question id, answer text)` pairs (one entry per student).

    The answers' sentences are encoded `batch` answers at a time (one call each, so the
    encoder runs large forward passes); grading them later finds the vectors in the cache.
    """
    cohorts: dict[str, Cohort] = {}
    vectors: dict[str, NDArray[np.float32] | None] = {}
    pairs = list(answers)
    distinct = list(dict.fromkeys(text for _, text in pairs))
    for start in range(0, len(distinct), batch):
        found = [AnswerVectors(embedder, split_sentences(text), settings.max_chars,
                               settings.max_sentences) for text in distinct[start:start + batch]]
        singles = [u.text for f in found for u in f.units if len(u.sentences) == 1]
        if singles:
            embedder.embed(list(dict.fromkeys(singles)))
        for text, answer in zip(distinct[start:start + batch], found, strict=True):
            vectors[text] = whole_vector(answer)
    for qid, text in pairs:
        cohorts.setdefault(qid, Cohort()).add(text, vectors[text])
    return cohorts
