"""The embedding model as the written grader would load it, named without loading it: what a
written group's cached results depend on (`WrittenKind.environment`)."""

from __future__ import annotations

import hashlib
import json
import threading

from graders.embedding.files import (
    MODEL_ID,
    RUNTIME,
    BertConfig,
    EmbedderUnavailable,
    model_directory,
)

_lock = threading.Lock()
_models: dict[int, str] = {}


def model_identity(max_tokens: int) -> str:
    """The embedding model as the written grader would load it, without loading it: its id,
    runtime and token cap (`SentenceEmbedder.model_id`) and the size and time of each of its
    files; "none" when it is not installed or cannot be read."""
    with _lock:
        found = _models.get(max_tokens)
    if found is None:
        found = _model_identity(max_tokens)
        with _lock:
            _models[max_tokens] = found
    return found


def _model_identity(max_tokens: int) -> str:
    try:
        directory = model_directory()
        config = BertConfig.from_file(directory / "config.json")
        pooling = json.loads((directory / "1_Pooling" / "config.json").read_text())
        stated = json.loads((directory / "sentence_bert_config.json").read_text())
        if not pooling.get("pooling_mode_mean_tokens") or max_tokens < 8:
            return "none"
        tokens = min(max_tokens, int(stated.get("max_seq_length", 256)), config.max_positions)
        files = sorted((str(p.relative_to(directory)), p.stat().st_size, p.stat().st_mtime_ns)
                       for p in directory.rglob("*") if p.is_file())
    except (EmbedderUnavailable, OSError, KeyError, ValueError, TypeError):
        return "none"
    digest = hashlib.sha256(repr(files).encode()).hexdigest()[:32]
    return f"{MODEL_ID}|{RUNTIME}|{tokens}|{digest}"
