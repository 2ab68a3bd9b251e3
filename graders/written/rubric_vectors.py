"""Vectors of the texts a rubric's written items give, kept per process for later answers.

An answer is compared with its question's phrasings, statements, reference statements and
graded examples (`rubric_texts`): some 200 texts for a question set such as transformer-basics
part A, the same for every answer. They are encoded with the first answer that needs them (in
that answer's batch, so their vectors are the ones the embedding cache would have returned) and
kept here as rows of one matrix per model: a later answer encodes only its own sentences and
clauses, and a phrasing list that recurs in every answer (an element's phrasings, the other
elements' as rivals) is read by one row gather (`rows_of`) instead of a lookup and a copy per
text. The embedding cache (`graders.embedding.cache`) still keeps them too, but by the text's
sha256 and among every answer's sentences, which a large table pushes out.

Bounded: `MAX_ROWS` texts per model; when full, the store starts again empty (a rubric's texts
come back with its next answer).
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from graders.written.config import WrittenConfig, element_statement

MAX_ROWS = 16_384  # about 25 MB of 384-float vectors: dozens of rubrics' texts
_MAX_LISTS = 8_192  # remembered text lists (`rows_of`), a few hundred bytes each
_FIRST_ROWS = 256


def rubric_texts(configs: Iterable[WrittenConfig]) -> frozenset[str]:
    """Every text of these items that an answer may be compared with: the reference
    statements, the graded examples, each element's phrasings and statement (or what stands
    for it) and the known wrong claims' phrasings."""
    texts: set[str] = set()
    for config in configs:
        texts.update(config.reference)
        texts.update(e.text for e in config.exemplars)
        for element in config.elements:
            texts.update(element.phrasings)
            texts.add(element_statement(element))
        for contradiction in config.phrased_contradictions:
            texts.update(contradiction.phrasings)
    return frozenset(texts)


@dataclass
class RubricVectors:
    """One model's vectors of rubric texts, as rows of one growing matrix."""

    dimension: int
    max_rows: int = MAX_ROWS
    _matrix: NDArray[np.float32] = field(init=False, repr=False)
    _rows: dict[str, int] = field(default_factory=dict, init=False, repr=False)
    _lists: dict[tuple[str, ...], NDArray[np.intp]] = field(default_factory=dict, init=False,
                                                            repr=False)
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False, repr=False)

    def __post_init__(self) -> None:
        self._matrix = np.empty((min(_FIRST_ROWS, self.max_rows), self.dimension),
                                dtype=np.float32)

    def __len__(self) -> int:
        return len(self._rows)

    def __contains__(self, text: object) -> bool:
        return text in self._rows

    def get(self, text: str) -> NDArray[np.float32] | None:
        with self._lock:
            row = self._rows.get(text)
            return None if row is None else self._matrix[row].copy()

    def rows_of(self, texts: Sequence[str]) -> NDArray[np.float32] | None:
        """The vectors of `texts` (rows, in order), or None when one of them is not kept."""
        key = tuple(texts)
        with self._lock:
            index = self._lists.get(key)
            if index is None:
                rows = [self._rows.get(t) for t in key]
                if any(r is None for r in rows):
                    return None
                if len(self._lists) >= _MAX_LISTS:
                    self._lists.clear()
                index = self._lists[key] = np.array(rows, dtype=np.intp)
            return self._matrix[index]

    def add(self, texts: Sequence[str], vectors: NDArray[np.float32]) -> None:
        """Keep these texts' vectors (rows of `vectors`); texts already kept keep theirs."""
        with self._lock:
            fresh: dict[str, NDArray[np.float32]] = {}
            for text, vector in zip(texts, vectors, strict=True):
                if text not in self._rows and text not in fresh:
                    fresh[text] = vector
            if not fresh:
                return
            if len(self._rows) + len(fresh) > self.max_rows:
                self._rows.clear()
                self._lists.clear()
                fresh = dict(list(fresh.items())[: self.max_rows])
            needed = len(self._rows) + len(fresh)
            if needed > len(self._matrix):
                grown = np.empty((min(self.max_rows, max(needed, 2 * len(self._matrix))),
                                  self.dimension), dtype=np.float32)
                grown[: len(self._rows)] = self._matrix[: len(self._rows)]
                self._matrix = grown
            for text, vector in fresh.items():
                row = len(self._rows)
                self._matrix[row] = vector
                self._rows[text] = row

    def clear(self) -> None:
        with self._lock:
            self._rows.clear()
            self._lists.clear()


_STORES: dict[str, RubricVectors] = {}
_STORES_LOCK = threading.Lock()


def rubric_vectors(model_id: str, dimension: int) -> RubricVectors:
    """This process's store of rubric-text vectors for the model `model_id`."""
    with _STORES_LOCK:
        store = _STORES.get(model_id)
        if store is None:
            store = _STORES[model_id] = RubricVectors(dimension)
        return store


def forget_rubric_vectors() -> None:
    """Empty every store (a benchmark's first submission; tests)."""
    with _STORES_LOCK:
        for store in _STORES.values():
            store.clear()
