"""Semantic similarity of an answer's sentences to an item's reference statements."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

import numpy as np
from numpy.typing import NDArray

from graders.embedding import SentenceEmbedder
from graders.written.rubric_vectors import rubric_vectors
from graders.written.text import Sentence

_MIN_LETTERS = 3
_LETTER = re.compile(r"[^\W\d_]")


@dataclass(frozen=True)
class Unit:
    """A stretch of the answer compared as a whole: a sentence, two adjacent ones, or all."""

    sentences: tuple[Sentence, ...]
    text: str


@dataclass(frozen=True)
class Closest:
    score: float
    unit: Unit
    target: str  # the reference statement or exemplar it is closest to
    index: int  # which reference / exemplar


def prose_of(sentences: Sequence[Sentence]) -> list[Sentence]:
    return [s for s in sentences if _is_prose(s.norm)]


@lru_cache(maxsize=50_000)
def _is_prose(text: str) -> bool:
    """At least a few letters (a formula or a number alone is not compared)."""
    letters = _LETTER.finditer(text)
    return all(next(letters, None) is not None for _ in range(_MIN_LETTERS))


def units_of(sentences: Sequence[Sentence]) -> list[Unit]:
    prose = prose_of(sentences)
    units = [Unit((s,), s.norm) for s in prose]
    units += [Unit((a, b), f"{a.norm} {b.norm}") for a, b in pairwise(prose)]
    if len(prose) > 2:
        units.append(Unit(tuple(prose), " ".join(s.norm for s in prose)))
    return units


def within_budget(sentences: Sequence[Sentence], max_chars: int, max_sentences: int
                  ) -> tuple[list[Sentence], int]:
    """The leading prose sentences that fit the budget (at least one), and how many were left."""
    prose = prose_of(sentences)
    kept: list[Sentence] = []
    used = 0
    for sentence in prose:
        if kept and (len(kept) >= max_sentences or used + len(sentence.norm) > max_chars):
            break
        kept.append(sentence)
        used += len(sentence.norm)
    return kept, len(prose) - len(kept)


def compose(units: Sequence[Unit], sentence_vectors: NDArray[np.float32]
            ) -> NDArray[np.float32]:
    """Vectors of all units from their sentences' vectors (the single-sentence units, in order).

    A stretch of several sentences is the length-weighted mean of its sentences' vectors,
    renormalised: mean pooling over the stretch's tokens, without the cross-sentence context.
    Only sentences are encoded, so the encoder reads each word of an answer once (a batch of
    answers costs its tokens, not two to three times them), and the cosines stay within a few
    hundredths of encoding the stretch itself.
    """
    index = {u.sentences[0]: row for row, u in enumerate(
        u for u in units if len(u.sentences) == 1)}
    out = np.empty((len(units), sentence_vectors.shape[1]), dtype=np.float32)
    for row, unit in enumerate(units):
        if len(unit.sentences) == 1:
            out[row] = sentence_vectors[index[unit.sentences[0]]]
            continue
        weights = np.array([len(s.norm) for s in unit.sentences], dtype=np.float32)
        mixed = weights @ sentence_vectors[[index[s] for s in unit.sentences]]
        out[row] = mixed / max(float(np.linalg.norm(mixed)), 1e-12)
    return out


class AnswerVectors:
    """An answer's units, embedded once and shared by all items graded against it.

    `prepare` embeds the sentences together with every target the items will compare them with,
    in one call, so a question's whole similarity work is one batched, length-sorted encoding;
    the longer units are composed from their sentences (`compose`).
    Only the leading `max_chars` / `max_sentences` of the answer are compared (`left_out` says
    how many sentences were not). Targets among `rubric` (the items' own texts, `rubric_texts`)
    are read from, and kept in, the process's store (`rubric_vectors`): a later answer does not
    encode them again.
    """

    def __init__(self, embedder: SentenceEmbedder, sentences: Sequence[Sentence],
                 max_chars: int = 1_000_000, max_sentences: int = 1_000_000,
                 rubric: AbstractSet[str] = frozenset()) -> None:
        self.embedder = embedder
        kept, self.left_out = within_budget(sentences, max_chars, max_sentences)
        self.units = units_of(kept)
        self._matrix: NDArray[np.float32] | None = None
        self._targets: dict[str, NDArray[np.float32]] = {}
        # Targets given by the rubric (`rubric_vectors`): kept per process, for later answers.
        self._rubric = rubric
        self._kept = rubric_vectors(embedder.model_id, embedder.dimension) if rubric else None
        self._stacked: dict[tuple[str, ...], NDArray[np.float32]] = {}

    def prepare(self, targets: Iterable[str]) -> None:
        kept = self._kept
        wanted = [t for t in dict.fromkeys(targets) if t not in self._targets
                  and (kept is None or t not in kept)]
        singles = [u for u in self.units if len(u.sentences) == 1]
        texts = ([] if self._matrix is not None else [u.text for u in singles]) + wanted
        if not texts:
            return
        vectors = self.embedder.embed(texts)
        if self._matrix is None:
            self._matrix = compose(self.units, vectors[: len(singles)])
            vectors = vectors[len(singles):]
        for text, vector in zip(wanted, vectors, strict=True):
            self._targets[text] = vector
        if kept is not None:
            given = [i for i, t in enumerate(wanted) if t in self._rubric]
            if given:
                kept.add([wanted[i] for i in given], vectors[given])

    @property
    def matrix(self) -> NDArray[np.float32]:
        if self._matrix is None:
            self.prepare(())
        assert self._matrix is not None
        return self._matrix

    def vectors_of(self, targets: Sequence[str]) -> NDArray[np.float32]:
        """The targets' vectors (rows, read-only): the items of a question ask for the same
        lists again and again (each element's phrasings, its rivals, each clause)."""
        key = tuple(targets)
        found = self._stacked.get(key)
        if found is not None:
            return found
        kept = self._kept.rows_of(key) if self._kept is not None and key else None
        if kept is not None:
            found = kept
        else:
            self.prepare(key)
            found = (np.stack([self._vector(t) for t in key]) if key
                     else np.empty((0, self.embedder.dimension), dtype=np.float32))
        found.setflags(write=False)
        self._stacked[key] = found
        return found

    def _vector(self, text: str) -> NDArray[np.float32]:
        vector = self._targets.get(text)
        if vector is None:
            vector = self._kept.get(text) if self._kept is not None else None
            if vector is None:  # dropped from a full store since `prepare`
                vector = self.embedder.embed_one(text)
            self._targets[text] = vector
        return vector

    def closest(self, targets: Sequence[str]) -> Closest | None:
        if not self.units or not targets:
            return None
        scores = self.matrix @ self.vectors_of(targets).T
        row, col = np.unravel_index(int(np.argmax(scores)), scores.shape)
        return Closest(float(scores[row, col]), self.units[int(row)], targets[int(col)], int(col))

    @property
    def longest(self) -> int:
        return max(range(len(self.units)), key=lambda i: len(self.units[i].sentences))

    def whole_scores(self, targets: Sequence[str]) -> NDArray[np.float32] | None:
        """Cosine of the whole answer (the longest unit) with each target."""
        if not self.units or not targets:
            return None
        scores: NDArray[np.float32] = self.vectors_of(targets) @ self.matrix[self.longest]
        return scores

    def whole(self, targets: Sequence[str]) -> float | None:
        """Similarity of the whole answer (the longest unit) to the closest target."""
        scores = self.whole_scores(targets)
        return None if scores is None else float(np.max(scores))
