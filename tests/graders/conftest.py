from __future__ import annotations

import pytest

from graders.embedding import EmbedderUnavailable, SentenceEmbedder, load_embedder


@pytest.fixture(scope="session")
def embedder() -> SentenceEmbedder:
    """The bundled sentence model, loaded once; a test that needs it skips without it."""
    try:
        return load_embedder()
    except EmbedderUnavailable as exc:
        pytest.skip(f"sentence-embedding model not installed: {exc}")
