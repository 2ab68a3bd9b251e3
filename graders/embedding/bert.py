"""A BERT encoder forward pass in NumPy (float32), enough for MiniLM sentence embeddings.

PyTorch is deliberately not a dependency: the model is small (6 layers, 384 wide) and a batched
NumPy forward pass is fast enough for grading, with the weights read from safetensors.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

F32 = NDArray[np.float32]


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


@dataclass(frozen=True)
class _Layer:
    qkv_w: F32  # (hidden, 3 * hidden): query, key and value fused into one matmul
    qkv_b: F32
    out_w: F32
    out_b: F32
    ln1_g: F32
    ln1_b: F32
    up_w: F32
    up_b: F32
    down_w: F32
    down_b: F32
    ln2_g: F32
    ln2_b: F32


def _erf(x: F32) -> F32:
    """erf to ~1.5e-7 (Abramowitz & Stegun 7.1.26); NumPy has none and SciPy is not a dependency."""
    a = np.abs(x)
    t = np.float32(0.3275911) * a
    t += 1.0
    np.reciprocal(t, out=t)
    poly = t * np.float32(1.061405429)
    for coefficient in (-1.453152027, 1.421413741, -0.284496736, 0.254829592):
        poly += np.float32(coefficient)
        poly *= t
    np.square(a, out=a)
    np.negative(a, out=a)
    np.exp(a, out=a)
    poly *= a
    np.subtract(1.0, poly, out=poly)
    poly *= np.sign(x)
    return poly


def _gelu(x: F32) -> F32:
    out = _erf(x * np.float32(0.7071067811865476))
    out += 1.0
    out *= x
    out *= np.float32(0.5)
    return out


def _layer_norm(x: F32, gamma: F32, beta: F32, eps: float) -> F32:
    mean = x.mean(axis=-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(axis=-1, keepdims=True)
    out: F32 = centred / np.sqrt(var + np.float32(eps)) * gamma + beta
    return out


class BertEncoder:
    def __init__(self, config: BertConfig, weights: dict[str, NDArray[np.generic]]) -> None:
        def get(name: str) -> F32:
            return np.ascontiguousarray(weights[name], dtype=np.float32)

        self.config = config
        self.word = get("embeddings.word_embeddings.weight")
        self.position = get("embeddings.position_embeddings.weight")
        self.token_type = get("embeddings.token_type_embeddings.weight")
        self.emb_ln_g = get("embeddings.LayerNorm.weight")
        self.emb_ln_b = get("embeddings.LayerNorm.bias")
        self.layers: list[_Layer] = []
        for i in range(config.layers):
            p = f"encoder.layer.{i}."
            att = p + "attention."
            self.layers.append(_Layer(
                qkv_w=np.ascontiguousarray(np.concatenate(
                    [get(att + f"self.{n}.weight") for n in ("query", "key", "value")]).T),
                qkv_b=np.concatenate(
                    [get(att + f"self.{n}.bias") for n in ("query", "key", "value")]),
                out_w=np.ascontiguousarray(get(att + "output.dense.weight").T),
                out_b=get(att + "output.dense.bias"),
                ln1_g=get(att + "output.LayerNorm.weight"),
                ln1_b=get(att + "output.LayerNorm.bias"),
                up_w=np.ascontiguousarray(get(p + "intermediate.dense.weight").T),
                up_b=get(p + "intermediate.dense.bias"),
                down_w=np.ascontiguousarray(get(p + "output.dense.weight").T),
                down_b=get(p + "output.dense.bias"),
                ln2_g=get(p + "output.LayerNorm.weight"),
                ln2_b=get(p + "output.LayerNorm.bias"),
            ))

    def forward(self, ids: NDArray[np.int64], mask: NDArray[np.int64]) -> F32:
        """Last hidden states (batch, length, hidden) for token ids with a padding mask."""
        cfg = self.config
        batch, length = ids.shape
        if length > cfg.max_positions:
            raise ValueError(f"sequence of {length} tokens exceeds {cfg.max_positions}")
        x = self.word[ids] + self.position[:length][None, :, :] + self.token_type[0]
        x = _layer_norm(x, self.emb_ln_g, self.emb_ln_b, cfg.layer_norm_eps)
        heads, width = cfg.heads, cfg.hidden // cfg.heads
        # Padding keys get a large negative bias so no real token attends to them.
        bias = ((1.0 - mask[:, None, None, :].astype(np.float32)) * np.float32(-1e9))
        scale = np.float32(1.0 / np.sqrt(width))
        for layer in self.layers:
            qkv = x @ layer.qkv_w + layer.qkv_b
            qkv = qkv.reshape(batch, length, 3, heads, width).transpose(2, 0, 3, 1, 4)
            q, k, v = qkv[0], qkv[1], qkv[2]
            scores = (q @ k.transpose(0, 1, 3, 2)) * scale + bias
            scores -= scores.max(axis=-1, keepdims=True)
            probs = np.exp(scores)
            probs /= probs.sum(axis=-1, keepdims=True)
            context = (probs @ v).transpose(0, 2, 1, 3).reshape(batch, length, cfg.hidden)
            x = _layer_norm(context @ layer.out_w + layer.out_b + x,
                            layer.ln1_g, layer.ln1_b, cfg.layer_norm_eps)
            hidden = _gelu(x @ layer.up_w + layer.up_b)
            x = _layer_norm(hidden @ layer.down_w + layer.down_b + x,
                            layer.ln2_g, layer.ln2_b, cfg.layer_norm_eps)
        return x.astype(np.float32, copy=False)
