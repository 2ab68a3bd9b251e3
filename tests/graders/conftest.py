from __future__ import annotations

from collections.abc import Iterator

import pytest

from graders.context import GradingResources
from graders.embedding import EmbedderUnavailable, SentenceEmbedder, load_embedder


@pytest.fixture(scope="session")
def resources() -> Iterator[GradingResources]:
    """One set of resources for the whole session, as a grading process keeps it: its helpers
    (the symbolic pool, say: ~0.5 s to start) start once (code/ and written/ have their own)."""
    shared = GradingResources()
    yield shared
    shared.close()


@pytest.fixture(scope="session")
def embedder() -> SentenceEmbedder:
    """The bundled sentence model, loaded once; a test that needs it skips without it."""
    try:
        return load_embedder()
    except EmbedderUnavailable as exc:
        pytest.skip(f"sentence-embedding model not installed: {exc}")
