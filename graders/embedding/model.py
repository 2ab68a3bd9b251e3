"""Sentence embeddings with all-MiniLM-L6-v2, offline: weights from the installed package.

Speed (docs/benchmarks.md, grade-table section): BLAS is held to one thread while encoding, and
a batch of 512 tokens or more is split by length into one share per core, each encoded by its
own thread (NumPy releases the GIL in its kernels). The vectors are those of one thread: every
text is encoded as if alone, whatever the split (tests/graders/embedding/test_reference.py).
A caller that knows what it will need queues it (`submit`): background threads run the passes,
most urgent first, while the caller goes on (`background.py`).
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import partial
from itertools import zip_longest
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from graders.embedding.background import PriorityWorkers
from graders.embedding.bert import BertEncoder, mean_pool
from graders.embedding.cache import EmbeddingCache, Vector, text_key, usable_folder
from graders.embedding.files import (
    DEFAULT_MAX_TOKENS,
    MODEL_ID,
    RUNTIME,
    BertConfig,
    EmbedderUnavailable,
    model_directory,
)
from graders.embedding.tokens import TokenStore, TokenVectors, unit_rows

if TYPE_CHECKING:
    from tokenizers import Encoding

# Tokens per forward pass (packed, no padding): large enough for efficient BLAS calls, small
# enough that the largest activation (tokens x 1536 floats) stays around 50 MB.
_TOKEN_BUDGET = 8192
# Below this many tokens per worker a text batch is encoded in the calling thread: splitting a
# few sentences costs more in hand-offs than the second core gives back.
_MIN_PART_TOKENS = 256


def default_workers() -> int:
    """Encoding threads: one per core this process may run on (at most 4)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cores = os.cpu_count() or 1
    return max(1, min(4, cores))


class SentenceEmbedder:
    """Mean-pooled, L2-normalised BERT sentence vectors, cached by the text's sha256.

    Each text is cut to `max_tokens` word pieces (the model reads 256 at most; grading needs the
    gist of a sentence, and a hostile text must not cost more than a sentence).
    """

    def __init__(self, directory: Path, cache_dir: Path | None = None,
                 max_cached: int = 100_000, max_tokens: int = DEFAULT_MAX_TOKENS,
                 exact_gelu: bool = False, workers: int | None = None) -> None:
        from safetensors import safe_open
        from threadpoolctl import ThreadpoolController
        from tokenizers import Tokenizer

        config = BertConfig.from_file(directory / "config.json")
        pooling = json.loads((directory / "1_Pooling" / "config.json").read_text())
        if not pooling.get("pooling_mode_mean_tokens"):
            raise EmbedderUnavailable("only mean pooling is implemented")
        settings = json.loads((directory / "sentence_bert_config.json").read_text())
        model_limit = min(int(settings.get("max_seq_length", 256)), config.max_positions)
        if max_tokens < 8:
            raise ValueError(f"max_tokens must be at least 8, not {max_tokens}")
        self.max_tokens = min(max_tokens, model_limit)
        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(self.max_tokens)
        # The weights are read on the first encoding (a run whose vectors are all cached never
        # needs them); their file is checked now, so a broken install is reported here.
        self._weights_file = directory / "model.safetensors"
        with safe_open(str(self._weights_file), framework="numpy") as weights:
            stored = set(weights.keys())
        missing = [n for n in BertEncoder.weight_names(config) if n not in stored]
        if missing:
            raise KeyError(f"{self._weights_file} lacks {missing[0]}")
        self.config = config
        self.exact_gelu = exact_gelu
        self._encoder: BertEncoder | None = None
        self._load_lock = threading.Lock()
        self.dimension = config.hidden
        runtime = "numpy-gelu-erf-1" if exact_gelu else RUNTIME
        self.model_id = f"{MODEL_ID}|{runtime}|{self.max_tokens}"
        self.cache = EmbeddingCache(self.dimension, max_cached, cache_dir)
        # Each encoded text's contextual word-piece vectors, kept from the same forward pass
        # (`tokens.py`): a folder of their own beside the sentence vectors' key folders.
        self.tokens = TokenStore(self.dimension, directory=None if cache_dir is None
                                 else cache_dir / "tokens")
        self.texts_encoded = 0
        self.tokens_encoded = 0
        self.texts_truncated = 0
        self.workers = default_workers() if workers is None else max(1, workers)
        self.min_part_tokens = _MIN_PART_TOKENS
        self._blas = ThreadpoolController()
        self._pool: ThreadPoolExecutor | None = None
        # Held while the BLAS thread limit (process-wide) is set, so that overlapping calls
        # from several threads cannot restore it to the wrong value.
        self._blas_limit = threading.Lock()
        # Texts queued by `submit` and not encoded yet, by the job that encodes them.
        self._queued: dict[str, _Part] = {}
        self._queued_lock = threading.Lock()
        self._background: PriorityWorkers | None = None
        self._background_limit: Any = None  # threadpoolctl's limiter, held while busy

    @property
    def encoder(self) -> BertEncoder:
        """The forward pass, its weights read from disk on first use."""
        if self._encoder is None:
            from safetensors.numpy import load_file

            with self._load_lock:
                if self._encoder is None:
                    self._encoder = BertEncoder(self.config, load_file(str(self._weights_file)),
                                                exact_gelu=self.exact_gelu)
        return self._encoder

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One unit vector per text (rows), from the cache where possible.

        All texts missing from the cache are encoded together, sorted by length, so one call
        with every sentence of a submission costs a few large forward passes.
        """
        self._await(texts)
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        todo: dict[str, list[int]] = {}
        keys: dict[str, str] = {}
        for row, text in enumerate(texts):
            if text in todo:
                todo[text].append(row)
                continue
            key = text_key(self.model_id, text)
            cached = self.cache.get(key)
            if cached is not None:
                out[row] = cached
            else:
                todo[text] = [row]
                keys[text] = key
        if todo:
            fresh = list(todo)
            vectors = self._encode(fresh)
            for text, vector in zip(fresh, vectors, strict=True):
                self.cache.put(keys[text], vector)
                out[todo[text]] = vector
        return out

    def uncached(self, texts: Sequence[str]) -> list[str]:
        """The distinct texts whose vectors are neither in memory nor on disk (those found on
        disk are now in memory) nor queued (`submit`): what `embed` would have to encode."""
        with self._queued_lock:
            queued = set(self._queued)
        return [text for text in dict.fromkeys(texts) if text not in queued
                and self.cache.get(text_key(self.model_id, text)) is None]

    def token_vectors(self, texts: Sequence[str]) -> list[TokenVectors]:
        """Each text's contextual word-piece vectors (`tokens.py`), kept when it was encoded;
        a text never encoded (or dropped from the store) is encoded now."""
        self._await(texts)
        keys = [text_key(self.model_id, text) for text in texts]
        found = [self.tokens.get(key) for key in keys]
        missing = list(dict.fromkeys(t for t, f in zip(texts, found, strict=True) if f is None))
        if missing:
            for text, vector in zip(missing, self._encode(missing), strict=True):
                self.cache.put(text_key(self.model_id, text), vector)
            found = [f if f is not None else self.tokens.get(key)
                     for f, key in zip(found, keys, strict=True)]
        out: list[TokenVectors] = []
        for text, tokens in zip(texts, found, strict=True):
            if tokens is None:  # dropped again at once: a store smaller than one batch
                self._encode([text])  # the store keeps at least the text it was last given
                tokens = self.tokens.get(text_key(self.model_id, text))
                assert tokens is not None
            out.append(tokens)
        return out

    def embed_one(self, text: str) -> Vector:
        vector: Vector = self.embed([text])[0]
        return vector

    def token_count(self, text: str) -> int:
        """Word pieces of `text` as encoded (after the cap), [CLS] and [SEP] included."""
        return len(self.tokenizer.encode(text).ids)

    def _encode(self, texts: list[str]) -> NDArray[np.float32]:
        encodings = self.tokenizer.encode_batch(texts)
        lengths = np.array([len(e.ids) for e in encodings], dtype=np.int64)
        self.texts_truncated += sum(1 for e in encodings if e.overflowing)
        result = np.empty((len(texts), self.dimension), dtype=np.float32)

        def encode(rows: list[int]) -> None:
            self._encode_part(texts, encodings, lengths, rows, result)

        parts = work_parts(lengths, self.workers, min_part=self.min_part_tokens)
        if not self._blas_limit.acquire(blocking=False):
            # Another thread (or the background workers) holds the one-thread BLAS limit
            # (process-wide).
            for rows in parts:
                encode(rows)
        else:
            # BLAS runs on one thread here: a threaded BLAS spends more time handing small
            # matmuls to its threads than computing them (up to 10x the CPU on a busy machine,
            # docs/benchmarks.md). Large batches are data parallel instead: each thread runs
            # whole forward passes (NumPy releases the GIL in matmuls and ufuncs), so the
            # element-wise work (GELU, softmax, LayerNorm) is spread over the cores too.
            try:
                with self._blas.limit(limits=1, user_api="blas"):
                    if len(parts) < 2 or self.workers == 1:
                        for rows in parts:
                            encode(rows)
                    else:
                        if self._pool is None:
                            self._pool = ThreadPoolExecutor(self.workers,
                                                            thread_name_prefix="embed")
                        for _ in self._pool.map(encode, parts):
                            pass
            finally:
                self._blas_limit.release()
        self.tokens_encoded += int(lengths.sum())
        self.texts_encoded += len(texts)
        return result

    def _encode_part(self, texts: list[str], encodings: list[Encoding],
                     lengths: NDArray[np.int64], rows: list[int],
                     result: NDArray[np.float32]) -> None:
        """One forward pass over `rows` of `texts`: their sentence vectors into `result`,
        their word pieces into the token store."""
        encoder = self.encoder
        ids = np.concatenate([np.asarray(encodings[r].ids, dtype=np.int64) for r in rows])
        hidden = encoder.hidden_states(ids, lengths[rows])
        pooled = mean_pool(hidden, lengths[rows])  # what `mean_pooled` computes, bit for bit
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), np.float32(1e-12))
        result[rows] = pooled
        units = unit_rows(hidden)
        start = 0
        for r in rows:
            end = start + int(lengths[r])
            encoding = encodings[r]
            self.tokens.put(text_key(self.model_id, texts[r]), TokenVectors.of_units(
                texts[r], units[start:end], encoding.offsets, encoding.word_ids))
            start = end

    def submit(self, texts: Sequence[str], priority: int = 0) -> int:
        """Encode in background threads the distinct texts that are neither cached nor already
        queued; returns how many. `embed` and `token_vectors` wait for queued texts (never
        encode them again), and `uncached` leaves them out.

        The texts are split into forward passes now, exactly as `embed` would split them, so
        the vectors are those `embed` of the same texts would give; `priority` only says which
        queued passes run first (lowest first): the passes of any of `texts` queued earlier
        with a later priority are moved up to this one."""
        with self._queued_lock:
            earlier = {id(part): part for text in texts if (part := self._queued.get(text))}
        if self._background is not None:
            for part in earlier.values():
                if part.handle is not None:
                    self._background.hurry(part.handle, priority)
        fresh = self.uncached(texts)
        if not fresh:
            return 0
        encodings = self.tokenizer.encode_batch(fresh)
        lengths = np.array([len(e.ids) for e in encodings], dtype=np.int64)
        parts = [_Part(rows) for rows in work_parts(lengths, self.workers,
                                                    min_part=self.min_part_tokens)]
        result = np.empty((len(fresh), self.dimension), dtype=np.float32)
        with self._queued_lock:
            for part in parts:
                for r in part.rows:
                    self._queued[fresh[r]] = part
        if self._background is None:
            self._background = PriorityWorkers(self.workers, self._hold_blas, self._free_blas)

        def run(part: _Part) -> None:
            try:
                self._encode_part(fresh, encodings, lengths, part.rows, result)
                for r in part.rows:
                    self.cache.put(text_key(self.model_id, fresh[r]), result[r])
            except BaseException as exc:  # handed to whoever waits for these texts
                part.error = exc
            with self._queued_lock:
                for r in part.rows:
                    if self._queued.get(fresh[r]) is part:
                        del self._queued[fresh[r]]
                self.tokens_encoded += int(lengths[part.rows].sum())
                self.texts_encoded += len(part.rows)
                self.texts_truncated += sum(1 for r in part.rows if encodings[r].overflowing)
            part.done.set()

        for part in parts:
            part.handle = self._background.put(priority, partial(run, part))
        return len(fresh)

    def _await(self, texts: Sequence[str]) -> None:
        """Wait for the queued passes that encode any of `texts` (`submit`), moving them to
        the front of the queue: nothing queued is more urgent than what a caller waits for."""
        with self._queued_lock:
            if not self._queued:
                return
            parts = {id(part): part for text in texts if (part := self._queued.get(text))}
        for part in parts.values():
            if self._background is not None and part.handle is not None:
                self._background.hurry(part.handle, -1)
        for part in parts.values():
            part.done.wait()
            if part.error is not None:
                raise part.error

    def _hold_blas(self) -> None:
        self._blas_limit.acquire()
        self._background_limit = self._blas.limit(limits=1, user_api="blas")

    def _free_blas(self) -> None:
        if self._background_limit is not None:
            self._background_limit.restore_original_limits()
            self._background_limit = None
        self._blas_limit.release()


class _Part:
    """One queued forward pass (`submit`): rows of its job's texts."""

    def __init__(self, rows: list[int]) -> None:
        self.rows = rows
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.handle: int | None = None  # in the background queue


def work_parts(lengths: NDArray[np.int64], workers: int, budget: int = _TOKEN_BUDGET,
               min_part: int = _MIN_PART_TOKENS) -> list[list[int]]:
    """Forward passes for `workers` threads: texts dealt round-robin by length, so each
    worker gets a similar share of tokens, then cut into passes of `budget / workers` tokens
    (the same memory as one thread's passes), interleaved so that the workers run together."""
    ways = max(1, min(workers, int(lengths.sum()) // min_part))
    order = np.argsort(lengths, kind="stable")
    groups = [order[w::ways] for w in range(ways)]
    chunked = [[[int(group[i]) for i in chunk] for chunk in token_chunks(lengths[group],
                                                                          budget // ways)]
               for group in groups]
    return [chunk for round_ in zip_longest(*chunked) for chunk in round_ if chunk is not None]


def token_chunks(lengths: NDArray[np.int64], budget: int = _TOKEN_BUDGET) -> list[list[int]]:
    """Texts grouped (shortest first) into forward passes of at most `budget` tokens."""
    chunks: list[list[int]] = []
    used = budget
    for row in np.argsort(lengths, kind="stable").tolist():
        size = int(lengths[row])
        if used + size > budget:
            chunks.append([])
            used = 0
        chunks[-1].append(row)
        used += size
    return chunks


def load_embedder(cache_dir: Path | str | None = None,
                  max_tokens: int = DEFAULT_MAX_TOKENS) -> SentenceEmbedder:
    """Load the bundled model; raises EmbedderUnavailable when it is not installed. A cache
    folder that cannot be made (a read-only or mistyped path) costs only the cache: vectors are
    then kept in memory, with a warning, and the grading still has its model."""
    directory = model_directory()
    folder = usable_folder(Path(cache_dir)) if cache_dir is not None else None
    try:
        return SentenceEmbedder(directory, folder, max_tokens=max_tokens)
    except (OSError, KeyError, ValueError) as exc:
        raise EmbedderUnavailable(f"cannot load {directory}: {exc}") from exc

