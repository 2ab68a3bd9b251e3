"""Sentence embeddings (all-MiniLM-L6-v2) in NumPy, with a text-hash cache."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graders.lazy import load

if TYPE_CHECKING:
    from graders.embedding.cache import EmbeddingCache, text_key
    from graders.embedding.files import MODEL_ID, EmbedderUnavailable, model_directory
    from graders.embedding.model import SentenceEmbedder, load_embedder

# Imported on first use: the model's identity (graders.embedding.files, read by the cache keys)
# is imported without NumPy and the model (graders.lazy).
_WHERE = {
    "EmbeddingCache": "graders.embedding.cache",
    "text_key": "graders.embedding.cache",
    "MODEL_ID": "graders.embedding.files",
    "EmbedderUnavailable": "graders.embedding.files",
    "model_directory": "graders.embedding.files",
    "SentenceEmbedder": "graders.embedding.model",
    "load_embedder": "graders.embedding.model",
}

__all__ = [
    "MODEL_ID",
    "EmbedderUnavailable",
    "EmbeddingCache",
    "SentenceEmbedder",
    "load_embedder",
    "model_directory",
    "text_key",
]


def __getattr__(name: str) -> Any:
    return load(globals(), _WHERE, name)
