"""Embeddings cached by the sha256 of their text: in memory (LRU) and optionally on disk."""

from __future__ import annotations

import contextlib
import hashlib
import os
import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

Vector = NDArray[np.float32]


def text_key(model_id: str, text: str) -> str:
    return hashlib.sha256(f"{model_id}\x00{text}".encode()).hexdigest()


class EmbeddingCache:
    def __init__(self, dimension: int, max_entries: int = 100_000,
                 directory: Path | None = None) -> None:
        self.dimension = dimension
        self.max_entries = max_entries
        self.directory = directory
        self._root = None if directory is None else os.fspath(directory)
        self._folders: set[str] = set()  # the key-prefix folders known to exist
        self._memory: OrderedDict[str, Vector] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0
        if directory is not None:
            directory.mkdir(parents=True, exist_ok=True)

    def __len__(self) -> int:
        return len(self._memory)

    def _file(self, key: str) -> str:
        # A string, not a Path: a warm run reads thousands of these (pathlib costs 6 us each).
        assert self._root is not None
        return f"{self._root}{os.sep}{key[:2]}{os.sep}{key}.f32"

    def get(self, key: str) -> Vector | None:
        with self._lock:
            vector = self._memory.get(key)
            if vector is not None:
                self._memory.move_to_end(key)
                self.hits += 1
                return vector
        vector = self._read(key)
        with self._lock:
            if vector is None:
                self.misses += 1
                return None
            self.hits += 1
            self._remember(key, vector)
        return vector

    def put(self, key: str, vector: Vector) -> None:
        vector = np.asarray(vector, dtype=np.float32)
        vector.setflags(write=False)
        with self._lock:
            self._remember(key, vector)
        if self.directory is not None:
            self._write(key, vector)

    def clear_memory(self) -> None:
        with self._lock:
            self._memory.clear()

    def _remember(self, key: str, vector: Vector) -> None:
        self._memory[key] = vector
        self._memory.move_to_end(key)
        while len(self._memory) > self.max_entries:
            self._memory.popitem(last=False)

    def _read(self, key: str) -> Vector | None:
        if self._root is None:
            return None
        try:
            handle = os.open(self._file(key), os.O_RDONLY)
        except OSError:
            return None
        try:
            raw = os.read(handle, 4 * self.dimension + 1)  # one byte more: a longer file is foreign
        except OSError:
            return None
        finally:
            os.close(handle)
        if len(raw) != 4 * self.dimension:  # a torn or foreign file is a miss, not an error
            return None
        vector = np.frombuffer(raw, dtype="<f4").astype(np.float32)
        vector.setflags(write=False)
        return vector

    def _write(self, key: str, vector: Vector) -> None:
        # os calls on string paths: a cold table run writes thousands of these (150 us each
        # through pathlib, 40 us so).
        path = self._file(key)
        folder = path[: path.rindex(os.sep)]
        temporary = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
        try:
            if folder not in self._folders:
                os.makedirs(folder, exist_ok=True)
                self._folders.add(folder)
            handle = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                os.write(handle, vector.astype("<f4").tobytes())
            finally:
                os.close(handle)
            os.replace(temporary, path)  # atomic: readers see the old file or the whole new one
        except OSError:
            # The disk cache is an optimisation; the in-memory copy is already kept.
            with contextlib.suppress(OSError):
                os.unlink(temporary)
