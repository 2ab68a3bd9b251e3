"""Contextual word-piece vectors of encoded texts, kept from the sentence encoder's own pass.

The sentence vector of a text is the mean of its last hidden states; the same states, one per
word piece, say what each word means *in that sentence* ("most recently added" against "random
order"), which token-level alignment (`graders/written/alignment.py`) compares. They are kept
when the text is encoded for its sentence vector, so the alignment costs no forward pass of its
own, and stored beside the sentence vectors (in memory, and on disk when the embedder has a
cache directory: a warm run reads them and never runs the model).

Only the pieces of words are kept ([CLS] and [SEP] are not), as unit vectors in float16 (the
cosines they give are within 1e-3 of float32's), each with the word it belongs to (lower
case), bounded per text by the encoder's token cap.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from graders.embedding.cache import read_file

_SEPARATOR = "\x1f"  # between the words in a stored file (never inside a lower-cased word)
_MAX_WORD = 64  # characters of a word kept: a hostile 10,000-letter "word" is one piece anyway


@dataclass(frozen=True)
class TokenVectors:
    """A text's word pieces: unit vectors (pieces, hidden) in float16 and each piece's word."""

    vectors: NDArray[np.float16]
    words: tuple[str, ...]

    @classmethod
    def of(cls, text: str, hidden: NDArray[np.float32], offsets: Sequence[tuple[int, int]],
           word_ids: Sequence[int | None]) -> TokenVectors:
        """From one text's last hidden states and its tokenizer offsets and word ids."""
        return cls.of_units(text, unit_rows(hidden), offsets, word_ids)

    @classmethod
    def of_units(cls, text: str, units: NDArray[np.float16], offsets: Sequence[tuple[int, int]],
                 word_ids: Sequence[int | None]) -> TokenVectors:
        """From one text's rows of `unit_rows` (all its pieces, [CLS] and [SEP] included)."""
        spans: dict[int, tuple[int, int]] = {}
        for (start, end), word in zip(offsets, word_ids, strict=True):
            if word is not None:
                low, high = spans.get(word, (start, end))
                spans[word] = (min(low, start), max(high, end))
        rows = [i for i, word in enumerate(word_ids) if word is not None]
        words = tuple(text[spans[w][0]:spans[w][1]][:_MAX_WORD].lower()
                      for w in (word_ids[i] for i in rows) if w is not None)
        return cls(units[rows], words)


def unit_rows(hidden: NDArray[np.float32]) -> NDArray[np.float16]:
    """Each row of `hidden` as a unit vector in float16. Row by row, so a whole forward pass's
    rows at once give each text's rows bit for bit (one call instead of one per text)."""
    norms = np.maximum(np.linalg.norm(hidden, axis=1, keepdims=True), np.float32(1e-12))
    units: NDArray[np.float16] = (hidden / norms).astype(np.float16)
    return units


class TokenStore:
    """`TokenVectors` by the text's cache key: an LRU bounded by word pieces held in memory, and
    optionally files under `directory` (`<key[:2]>/<key>.tok`)."""

    def __init__(self, dimension: int, max_pieces: int = 200_000,
                 directory: Path | None = None) -> None:
        self.dimension = dimension
        self.max_pieces = max_pieces
        self._root = None if directory is None else os.fspath(directory)
        self._memory: OrderedDict[str, TokenVectors] = OrderedDict()
        self._pieces = 0
        self._lock = threading.Lock()
        if directory is not None:
            directory.mkdir(parents=True, exist_ok=True)

    def __len__(self) -> int:
        return len(self._memory)

    def get(self, key: str) -> TokenVectors | None:
        with self._lock:
            found = self._memory.get(key)
            if found is not None:
                self._memory.move_to_end(key)
                return found
        found = self._read(key)
        if found is not None:
            with self._lock:
                self._remember(key, found)
        return found

    def put(self, key: str, tokens: TokenVectors) -> None:
        with self._lock:
            self._remember(key, tokens)
        if self._root is not None:
            self._write(key, tokens)

    def clear_memory(self) -> None:
        with self._lock:
            self._memory.clear()
            self._pieces = 0

    def _remember(self, key: str, tokens: TokenVectors) -> None:
        old = self._memory.pop(key, None)
        if old is not None:
            self._pieces -= len(old.words)
        self._memory[key] = tokens
        self._pieces += len(tokens.words)
        while self._pieces > self.max_pieces and len(self._memory) > 1:
            _, dropped = self._memory.popitem(last=False)
            self._pieces -= len(dropped.words)

    def _file(self, key: str) -> str:
        assert self._root is not None
        return f"{self._root}{os.sep}{key[:2]}{os.sep}{key}.tok"

    def _read(self, key: str) -> TokenVectors | None:
        if self._root is None:
            return None
        raw = read_file(self._file(key))
        if raw is None:
            return None
        # A file is: the piece count and the words' byte length (4 bytes each), the float16
        # vectors, then the words joined; any other length is a torn or foreign file: a miss.
        if len(raw) < 8:
            return None
        count = int.from_bytes(raw[:4], "little")
        size = 2 * self.dimension * count
        if len(raw) != 8 + size + int.from_bytes(raw[4:8], "little"):
            return None
        try:
            words = tuple(raw[8 + size:].decode().split(_SEPARATOR)) if count else ()
        except UnicodeDecodeError:
            return None
        if len(words) != count:
            return None
        vectors = np.frombuffer(raw, dtype="<f2", count=count * self.dimension, offset=8)
        return TokenVectors(vectors.reshape(count, self.dimension), words)

    def _write(self, key: str, tokens: TokenVectors) -> None:
        path = self._file(key)
        temporary = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
        words = _SEPARATOR.join(w.replace(_SEPARATOR, " ") for w in tokens.words).encode()
        payload = (len(tokens.words).to_bytes(4, "little") + len(words).to_bytes(4, "little")
                   + tokens.vectors.astype("<f2").tobytes() + words)
        try:
            os.makedirs(path[: path.rindex(os.sep)], exist_ok=True)
            with open(temporary, "wb") as handle:
                handle.write(payload)
            os.replace(temporary, path)
        except OSError:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
