"""Embeddings cached by the sha256 of their text: in memory (LRU) and optionally on disk.

The default disk folder (`default_directory`) is the user's cache folder, named by a fingerprint
of the model files and the encoder's code (`model_fingerprint`), so a changed model or forward
pass starts an empty folder instead of reading stale vectors; `prune` keeps it under a size.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.metadata
import logging
import os
import sys
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from graders.embedding.files import MODEL_ID, RUNTIME, EmbedderUnavailable, model_directory

log = logging.getLogger(__name__)

Vector = NDArray[np.float32]


def text_key(model_id: str, text: str) -> str:
    return hashlib.sha256(f"{model_id}\x00{text}".encode()).hexdigest()



def read_file(path: str, limit: int | None = None) -> bytes | None:
    """A cache file's bytes (at most `limit`; the whole file when None), None when unreadable.

    os calls on a string path: a warm table run reads thousands of these, and buffered `open`
    costs several times more."""
    try:
        handle = os.open(path, os.O_RDONLY)
    except OSError:
        return None
    try:
        return os.read(handle, os.fstat(handle).st_size + 1 if limit is None else limit)
    except OSError:
        return None
    finally:
        os.close(handle)

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
        self.written = 0  # files written to the folder
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
        raw = read_file(self._file(key), 4 * self.dimension + 1)  # a longer file is foreign
        if raw is None:
            return None
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
            self.written += 1
        except OSError:
            # The disk cache is an optimisation; the in-memory copy is already kept.
            with contextlib.suppress(OSError):
                os.unlink(temporary)


# The default folder takes at most this much disk (vector files and anything else under it):
# the Mohler table's 4,967 sentences and words take about 22 MB.
DEFAULT_MAX_BYTES = 512 * 1024 * 1024
_EMBEDDING_CODE = Path(__file__).resolve().parent
_LIBRARIES = ("numpy", "tokenizers", "safetensors")


def user_cache_root(environ: dict[str, str] | None = None) -> Path:
    """`$XDG_CACHE_HOME/gradeformer`, else `~/.cache/gradeformer` (the XDG base directory rule,
    as platformdirs names a Linux user cache folder)."""
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME", "")
    if not base or not os.path.isabs(base):  # the spec says a relative value is ignored
        base = os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "gradeformer"


@lru_cache(maxsize=1)
def model_fingerprint() -> str:
    """What the vectors depend on: the model's files (the weights by size and time, the small
    ones by content), the encoder's source and the libraries' versions. "none" without a model."""
    try:
        directory = model_directory()
    except EmbedderUnavailable:
        return "none"
    hasher = hashlib.sha256(f"{MODEL_ID}\x00{RUNTIME}\x00{sys.version}".encode())
    for name in _LIBRARIES:
        try:
            hasher.update(f"\x00{name}={importlib.metadata.version(name)}".encode())
        except importlib.metadata.PackageNotFoundError:
            hasher.update(f"\x00{name}=?".encode())
    weights = (directory / "model.safetensors").stat()
    hasher.update(f"\x00{weights.st_size}:{weights.st_mtime_ns}".encode())
    small = sorted(p for p in directory.rglob("*.json") if p.is_file())
    for path in [*small, *sorted(_EMBEDDING_CODE.glob("*.py"))]:
        hasher.update(b"\x00" + path.name.encode() + b"\x00" + path.read_bytes())
    return hasher.hexdigest()


def default_directory(environ: dict[str, str] | None = None) -> Path:
    """The persistent folder of this model's vectors: `<user cache>/embeddings/<fingerprint>`."""
    return user_cache_root(environ) / "embeddings" / model_fingerprint()[:16]


def writable(directory: Path) -> str | None:
    """None when the folder exists (made if need be) and takes a file; else why not."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
        probe = directory / f".probe.{os.getpid()}.{threading.get_ident()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        return exc.strerror or str(exc)
    return None


def prune(root: Path, max_bytes: int = DEFAULT_MAX_BYTES) -> int:
    """Delete the oldest files (by modification time) under `root` until at most 90% of
    `max_bytes` is left, when over `max_bytes`. Returns the files deleted. Safe while other
    processes read or write: a file gone is a miss for them, and every write is atomic."""
    files: list[tuple[int, int, str]] = []
    total = 0
    for folder, _, names in os.walk(root):
        for name in names:
            path = os.path.join(folder, name)
            try:
                stat = os.stat(path)
            except OSError:
                continue
            # What the file takes on disk (whole blocks: a 1.5 kB vector takes 4 kB).
            size = max(stat.st_size, getattr(stat, "st_blocks", 0) * 512)
            files.append((stat.st_mtime_ns, size, path))
            total += size
    if total <= max_bytes:
        return 0
    deleted = 0
    for _, size, path in sorted(files):
        if total <= max_bytes * 0.9:
            break
        with contextlib.suppress(OSError):
            os.unlink(path)
            deleted += 1
        total -= size
    return deleted


def usable_folder(folder: Path) -> Path | None:
    """`folder`, made if need be; None (with a warning) when it cannot be."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        log.warning("embedding cache folder %s cannot be used (%s): vectors are kept in "
                    "memory only", folder, exc.strerror or type(exc).__name__)
        return None
    return folder
