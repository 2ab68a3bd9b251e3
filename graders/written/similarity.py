"""Semantic similarity of an answer's sentences to an item's reference statements."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise

import numpy as np
from numpy.typing import NDArray

from graders.embedding import SentenceEmbedder
from graders.written.text import Sentence

_MIN_LETTERS = 3


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


def units_of(sentences: Sequence[Sentence]) -> list[Unit]:
    prose = [s for s in sentences if sum(c.isalpha() for c in s.norm) >= _MIN_LETTERS]
    units = [Unit((s,), s.norm) for s in prose]
    units += [Unit((a, b), f"{a.norm} {b.norm}") for a, b in pairwise(prose)]
    if len(prose) > 2:
        units.append(Unit(tuple(prose), " ".join(s.norm for s in prose)))
    return units


class AnswerVectors:
    """An answer's units, embedded on first use and shared by all items graded against it."""

    def __init__(self, embedder: SentenceEmbedder, sentences: Sequence[Sentence]) -> None:
        self.embedder = embedder
        self.units = units_of(sentences)
        self._matrix: NDArray[np.float32] | None = None

    @property
    def matrix(self) -> NDArray[np.float32]:
        if self._matrix is None:
            self._matrix = self.embedder.embed([u.text for u in self.units])
        return self._matrix

    def closest(self, targets: Sequence[str]) -> Closest | None:
        if not self.units or not targets:
            return None
        scores = self.matrix @ self.embedder.embed(list(targets)).T
        row, col = np.unravel_index(int(np.argmax(scores)), scores.shape)
        return Closest(float(scores[row, col]), self.units[int(row)], targets[int(col)], int(col))

    def whole(self, targets: Sequence[str]) -> float | None:
        """Similarity of the whole answer (the longest unit) to the closest target."""
        if not self.units or not targets:
            return None
        longest = max(range(len(self.units)), key=lambda i: len(self.units[i].sentences))
        scores = self.matrix[longest] @ self.embedder.embed(list(targets)).T
        return float(np.max(scores))
