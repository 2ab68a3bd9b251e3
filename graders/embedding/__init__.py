"""Sentence embeddings (all-MiniLM-L6-v2) in NumPy, with a text-hash cache."""

from graders.embedding.cache import EmbeddingCache, text_key
from graders.embedding.model import (
    MODEL_ID,
    EmbedderUnavailable,
    SentenceEmbedder,
    load_embedder,
    model_directory,
)

__all__ = [
    "MODEL_ID",
    "EmbedderUnavailable",
    "EmbeddingCache",
    "SentenceEmbedder",
    "load_embedder",
    "model_directory",
    "text_key",
]
