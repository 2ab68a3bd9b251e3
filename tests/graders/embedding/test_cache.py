from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.embedding import EmbeddingCache, text_key
from graders.embedding.cache import (
    default_directory,
    model_fingerprint,
    prune,
    user_cache_root,
    writable,
)


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


def test_the_user_cache_root_follows_the_xdg_rule(tmp_path: Path) -> None:
    assert user_cache_root({"XDG_CACHE_HOME": str(tmp_path)}) == tmp_path / "gradeformer"
    home = Path(os.path.expanduser("~")) / ".cache" / "gradeformer"
    assert user_cache_root({"XDG_CACHE_HOME": "relative/dir"}) == home  # ignored, per the spec
    assert user_cache_root({}) == home
    folder = default_directory({"XDG_CACHE_HOME": str(tmp_path)})
    assert folder.parent == tmp_path / "gradeformer" / "embeddings"
    assert folder.name == model_fingerprint()[:16]


def test_a_folder_that_cannot_be_written_says_why(tmp_path: Path) -> None:
    assert writable(tmp_path / "new" / "folder") is None
    assert (tmp_path / "new" / "folder").is_dir() and not any((tmp_path / "new").rglob(".probe*"))
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    assert writable(blocker / "cache") is not None


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.integers(0, 9000), min_size=0, max_size=25), st.integers(1, 100_000))
def test_prune_deletes_the_oldest_until_under_the_bound(tmp_path_factory: pytest.TempPathFactory,
                                                        lengths: list[int], bound: int) -> None:
    root = tmp_path_factory.mktemp("prune")
    paths = []
    for i, length in enumerate(lengths):
        path = root / f"{i % 3:02x}" / f"{i}.f32"
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"x" * length)
        os.utime(path, ns=(i * 10**9, i * 10**9))  # file i is older than file i + 1
        paths.append(path)
    # Sizes as prune counts them: what each file takes on disk, in whole blocks.
    sizes = [max(p.stat().st_size, p.stat().st_blocks * 512) for p in paths]
    deleted = prune(root, bound)
    left = [p.exists() for p in paths]
    assert deleted == left.count(False)
    if sum(sizes) <= bound:
        assert all(left)
    else:
        assert sum(s for s, kept in zip(sizes, left, strict=True) if kept) <= bound * 0.9
        assert left == sorted(left)  # only the oldest were deleted
        if False in left:  # and no more than needed: keeping the newest deleted was too much
            last = left.index(True) - 1 if True in left else len(left) - 1
            assert sum(s for s, kept in zip(sizes, left, strict=True) if kept) + sizes[last] > (
                bound * 0.9)
