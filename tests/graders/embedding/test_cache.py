from __future__ import annotations

from pathlib import Path

import numpy as np

from graders.embedding import EmbeddingCache, text_key


def test_lru_keeps_the_most_recent() -> None:
    cache = EmbeddingCache(dimension=3, max_entries=2)
    for name in ("a", "b"):
        cache.put(name, np.ones(3, dtype=np.float32))
    assert cache.get("a") is not None  # "a" is now the most recent
    cache.put("c", np.zeros(3, dtype=np.float32))
    assert cache.get("b") is None
    assert cache.get("a") is not None and cache.get("c") is not None
    assert cache.hits == 3 and cache.misses == 1


def test_disk_cache_survives_a_new_process(tmp_path: Path) -> None:
    key = text_key("model", "hello")
    EmbeddingCache(4, directory=tmp_path).put(key, np.arange(4, dtype=np.float32))
    fresh = EmbeddingCache(4, directory=tmp_path)
    vector = fresh.get(key)
    assert vector is not None and vector.tolist() == [0.0, 1.0, 2.0, 3.0]


def test_torn_disk_entry_is_a_miss(tmp_path: Path) -> None:
    key = text_key("model", "torn")
    cache = EmbeddingCache(4, directory=tmp_path)
    cache.put(key, np.ones(4, dtype=np.float32))
    path = next(tmp_path.rglob("*.f32"))
    path.write_bytes(b"\x00\x01")
    assert EmbeddingCache(4, directory=tmp_path).get(key) is None


def test_keys_depend_on_model_and_text() -> None:
    assert text_key("m", "x") != text_key("m", "y") != text_key("n", "x")
    assert len(text_key("m", "x")) == 64


def test_longer_disk_entry_is_a_miss(tmp_path: Path) -> None:
    key = text_key("model", "long")
    EmbeddingCache(4, directory=tmp_path).put(key, np.ones(4, dtype=np.float32))
    path = next(tmp_path.rglob("*.f32"))
    path.write_bytes(path.read_bytes() + b"\x00")
    assert EmbeddingCache(4, directory=tmp_path).get(key) is None


def test_a_failed_disk_write_keeps_the_vector_in_memory(tmp_path: Path) -> None:
    key = text_key("model", "blocked")
    (tmp_path / key[:2]).write_text("a file where the key's folder should be")
    cache = EmbeddingCache(4, directory=tmp_path)
    cache.put(key, np.full(4, 2.0, dtype=np.float32))  # no error: the disk is an optimisation
    vector = cache.get(key)
    assert vector is not None and vector.tolist() == [2.0] * 4
    assert EmbeddingCache(4, directory=tmp_path).get(key) is None  # nothing on disk
    assert not list(tmp_path.rglob("*.tmp"))
