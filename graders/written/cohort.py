"""The cohort: all students' answers to the same question, as evidence without any human grade.

When a whole table of answers (or a bulk regrade) is graded at once, every answer to a question
is known before any is decided. Two numbers from the cohort are used by the shipped calibration
(`calibration.json`, section `cohort`), both from each answer's whole-answer vector (the same
all-MiniLM-L6-v2 vector the reference features use):

- `knn`: the mean cosine with the answer's `NEIGHBOURS` closest peers (itself left out): an
  answer that several classmates gave in nearly the same words is rarely misjudged;
- `centre`: the cosine with the normalised mean of the cohort's vectors: how typical the answer
  is of what the class wrote.

Both are taken over the cohort's *distinct* answers (exact repeats count once), and the
minimum size and the coherence limit too: a wrong answer that most of a class wrote word for
word (copied, or a shared misconception) must not be its own closest peers and its class's
centre.

Neither looks at a grade or at the reference: it is still reference-only grading. The features
depend on the cohort as a set (row order does not matter), and a cohort smaller than `MIN_SIZE`
is not used: the answer is graded by the per-answer model, exactly as for a single upload. Nor
is a cohort more alike than any the calibration was fitted on (`MAX_COHERENCE`).
Chosen on Mohler assignments 1-6 only (cross-validated by assignment; docs/benchmarks.md).
"""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Iterable

import numpy as np
from numpy.typing import NDArray

from graders.context import Resource
from graders.embedding import SentenceEmbedder
from graders.written.settings import WrittenSettings
from graders.written.similarity import AnswerVectors
from graders.written.text import split_sentences

COHORT_KEY: Resource[dict[str, Cohort]] = Resource("written_cohorts")
NEIGHBOURS = 3
MIN_SIZE = 5  # answers with prose; a smaller cohort says too little about its peers
# Distinct answers kept as peers at most (those with the smallest digests: a sample that does
# not depend on row order), so an answer's features cost at most this many cosines.
MAX_PEERS = 2000
COHORT_FEATURES = ("knn", "centre")
# The length of the cohort's mean vector (1: every answer the same; Mohler's questions, the
# calibration's fitting data, range from 0.59 to 0.87) above which the cohort is not used: a
# class that nearly all wrote the same thing is off the fitted range, and its `knn` and
# `centre` (both near 1) would vouch for any answer it repeats, wrong or right.
MAX_COHERENCE = 0.9


class Cohort:
    """One question's answers: how many, the sum of their whole-answer vectors (for the
    centre), and at most `MAX_PEERS` distinct answers as peers (by digest, never the text, so
    that a hostile table of huge distinct answers cannot fill memory)."""

    def __init__(self) -> None:
        self.size = 0
        self._sum: NDArray[np.float64] | None = None
        self._peers: dict[bytes, tuple[NDArray[np.float32], int]] = {}
        self._evictable: list[bytes] = []  # a heap of the peers' digests, largest first (negated)
        self._matrix: tuple[NDArray[np.float64], NDArray[np.int64], list[bytes]] | None = None
        self._memo: dict[bytes, dict[str, float] | None] = {}
        self._overflowed = False  # more distinct answers were seen than are kept as peers

    def add(self, text: str, vector: NDArray[np.float32] | None) -> None:
        """One student's answer (no vector: no prose, not a member)."""
        if vector is None:
            return
        self.size += 1
        wide = vector.astype(np.float64)
        self._sum = wide if self._sum is None else self._sum + wide
        self._matrix = None
        self._memo.clear()
        key = _digest(text)
        kept = self._peers.get(key)
        if kept is not None:
            self._peers[key] = (kept[0], kept[1] + 1)
            return
        if len(self._peers) >= MAX_PEERS:
            largest = _unflip(self._evictable[0])
            self._overflowed = True
            if key > largest:
                return  # not among the smallest digests: not a peer
            heapq.heapreplace(self._evictable, _flip(key))
            del self._peers[largest]
        else:
            heapq.heappush(self._evictable, _flip(key))
        self._peers[key] = (vector, 1)

    @property
    def coherence(self) -> float:
        """The length of the mean of the cohort's (unit) vectors: 1 when all are the same."""
        if self._sum is None or not self.size:
            return 0.0
        return float(np.linalg.norm(self._sum)) / self.size

    def _prepared(self) -> tuple[NDArray[np.float64], NDArray[np.int64], list[bytes]]:
        if self._matrix is None:
            keys = sorted(self._peers)  # sorted: the features do not depend on row order
            self._matrix = (
                np.stack([self._peers[k][0] for k in keys]).astype(np.float64),
                np.array([self._peers[k][1] for k in keys], dtype=np.int64), keys)
        return self._matrix

    def features(self, text: str, vector: NDArray[np.float32]) -> dict[str, float] | None:
        """`knn` and `centre` of an answer with this whole-answer vector; None when the cohort
        is too small to say anything (then the per-answer model grades)."""
        key = _digest(text)
        if key not in self._memo:
            self._memo[key] = self._features(key, vector)
        return self._memo[key]

    def _features(self, key: bytes, vector: NDArray[np.float32]) -> dict[str, float] | None:
        # Distinct answers only: an answer many students wrote word for word (copied, or a
        # popular misconception) counts once, so a repeated answer cannot vouch for itself by
        # being its own closest peers and the cohort's centre.
        if len(self._peers) < MIN_SIZE and not self._overflowed:
            return None
        matrix, _, _ = self._prepared()
        total = matrix.sum(axis=0)
        if float(np.linalg.norm(total)) / len(matrix) > MAX_COHERENCE:
            return None
        wide = vector.astype(np.float64)
        cosines = matrix @ wide
        if key in self._peers:  # the answer itself is one of the peers: leave it out
            cosines = np.delete(cosines, int(np.argmax(cosines)))
        if cosines.size == 0:
            return None
        top = np.sort(cosines)[-NEIGHBOURS:]
        centre = total / max(float(np.linalg.norm(total)), 1e-12)
        return {"knn": round(float(top.mean()), 6), "centre": round(float(centre @ wide), 6)}


def _digest(text: str) -> bytes:
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def _flip(key: bytes) -> bytes:
    """A digest under which the heap (smallest first) pops the largest digest first."""
    return bytes(255 - b for b in key)


def _unflip(key: bytes) -> bytes:
    return _flip(key)


def whole_vector(vectors: AnswerVectors) -> NDArray[np.float32] | None:
    """The answer's whole-answer vector (its longest compared stretch), None without prose."""
    if not vectors.units:
        return None
    vector: NDArray[np.float32] = vectors.matrix[vectors.longest]
    return vector


def build_cohorts(embedder: SentenceEmbedder, answers: Iterable[tuple[str, str]],
                  settings: WrittenSettings, batch: int = 512) -> dict[str, Cohort]:
    """The cohorts of these `(question id, answer text)` pairs (one entry per student).

    The answers are read `batch` at a time (memory stays bounded for any table); each batch's
    sentences are encoded in one call, so the encoder runs large forward passes, and grading
    the answers later finds their vectors in the embedder's cache.
    """
    cohorts: dict[str, Cohort] = {}
    chunk: list[tuple[str, str]] = []
    for pair in answers:
        chunk.append(pair)
        if len(chunk) >= batch:
            _add_batch(embedder, chunk, settings, cohorts)
            chunk = []
    if chunk:
        _add_batch(embedder, chunk, settings, cohorts)
    return cohorts


def _add_batch(embedder: SentenceEmbedder, pairs: list[tuple[str, str]],
               settings: WrittenSettings, cohorts: dict[str, Cohort]) -> None:
    found = {text: AnswerVectors(embedder, split_sentences(text), settings.max_chars,
                                 settings.max_sentences)
             for text in dict.fromkeys(text for _, text in pairs)}
    singles = [u.text for f in found.values() for u in f.units if len(u.sentences) == 1]
    if singles:
        embedder.embed(list(dict.fromkeys(singles)))
    vectors = {text: whole_vector(answer) for text, answer in found.items()}
    for qid, text in pairs:
        cohorts.setdefault(qid, Cohort()).add(text, vectors[text])
