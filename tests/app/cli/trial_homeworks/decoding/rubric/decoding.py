"""Reference and known bugs for homework 4's code questions (top-p filtering, a padding and
causal mask): run by the grader, never by students."""

from __future__ import annotations

from typing import Any

import numpy as np

Array = np.ndarray


def _softmax(logits: Array) -> Array:
    z = np.exp(logits - logits.max(axis=-1, keepdims=True))
    return z / z.sum(axis=-1, keepdims=True)


def _nucleus(logits: Array, p: float, *, strict: bool = False, renormalise: bool = True,
             ascending: bool = False) -> Array:
    probs = _softmax(np.asarray(logits, dtype=float))
    order = np.argsort(probs if ascending else -probs)
    cumulative = np.cumsum(probs[order])
    # keep a token while the mass before it is still short of p: the token that reaches p is kept
    before = cumulative - probs[order]
    keep_sorted = cumulative < p if strict else before < p
    keep = np.zeros_like(probs, dtype=bool)
    keep[order[keep_sorted]] = True
    kept = np.where(keep, probs, 0.0)
    return kept / kept.sum() if renormalise and kept.sum() > 0 else kept


def top_p(logits: Array, p: float) -> Array:
    return _nucleus(logits, p)


def _strict(logits: Array, p: float) -> Array:
    return _nucleus(logits, p, strict=True)


def _not_renormalised(logits: Array, p: float) -> Array:
    return _nucleus(logits, p, renormalise=False)


def _ascending(logits: Array, p: float) -> Array:
    return _nucleus(logits, p, ascending=True)


def same_support(inputs: dict[str, Any], observed: dict[str, Any],
                 reference: dict[str, Any]) -> tuple[bool, str]:
    got = np.asarray(observed["probs"], dtype=float)
    want = np.asarray(reference["probs"])
    if got.shape != want.shape:
        return False, f"shape {got.shape}, asked {want.shape}"
    kept, asked = got > 1e-12, want > 0
    said = f"kept {int(kept.sum())} tokens, asked {int(asked.sum())}"
    return bool(np.array_equal(kept, asked)), said


TOP_P_VARIANTS: dict[str, tuple[Any, ...]] = {
    "drops_crossing_token": ("The token whose probability takes the cumulative mass past p is "
                             "dropped; top-p keeps the smallest set whose mass reaches p, so "
                             "that token is kept.", _strict),
    "not_renormalised": ("The kept probabilities are not renormalised to sum to 1.",
                         _not_renormalised),
    "ascending_sort": ("The tokens are sorted from the least to the most probable; the nucleus "
                       "is made of the most probable tokens.", _ascending),
}


def padded(inputs: dict[str, Any], sizes: dict[str, int], rng: np.random.Generator
           ) -> dict[str, Any]:
    """Right padding: each sequence has a length from 1 to T, True marks its padding."""
    B, T = sizes["B"], sizes["T"]
    lengths = rng.integers(1, T + 1, size=B)
    lengths[0] = max(1, T - 1)  # at least one sequence is padded
    inputs["pad"] = np.arange(T)[None, :] >= lengths[:, None]
    return inputs


def _mask(pad: Array, *, diagonal: int = 0, queries: bool = False, keys: bool = True) -> Array:
    pad = np.asarray(pad, dtype=bool)
    T = pad.shape[-1]
    causal = np.tril(np.ones((T, T), dtype=bool), k=diagonal)
    allowed = np.broadcast_to(causal, (pad.shape[0], T, T)).copy()
    if keys:
        allowed &= ~pad[:, None, :]
    if queries:
        allowed &= ~pad[:, :, None]
    return allowed


def attention_mask(pad: Array) -> Array:
    return _mask(pad)


def _query_rows(pad: Array) -> Array:
    return _mask(pad, queries=True, keys=False)


def _no_diagonal(pad: Array) -> Array:
    return _mask(pad, diagonal=-1)


def _padding_ignored(pad: Array) -> Array:
    return _mask(pad, keys=False)


def _inverted(pad: Array) -> Array:
    return ~_mask(pad)


def causal_part(inputs: dict[str, Any], observed: dict[str, Any],
                reference: dict[str, Any]) -> tuple[bool, str]:
    """No position attends to a later one (whatever is done with the padding)."""
    got = np.asarray(observed["allowed"])
    if got.ndim != 3 or got.shape[-1] != got.shape[-2]:
        return False, f"shape {got.shape}"
    future = np.triu(np.ones(got.shape[-2:], dtype=bool), k=1)
    seen = np.asarray(got, dtype=bool) if got.dtype == bool else got > 0.5
    return (not bool(seen[:, future].any()), "a position attends to a later one"
            if seen[:, future].any() else "no later position is attended")


MASK_VARIANTS: dict[str, tuple[Any, ...]] = {
    "query_rows": ("The padding is masked along the query rows; a padded position must not be "
                   "attended to, so it is its key column that is masked.", _query_rows),
    "no_diagonal": ("The causal mask also hides the diagonal: each position may attend to "
                    "itself (np.tril with k=0, or np.triu with k=1 for the hidden part).",
                    _no_diagonal),
    "padding_ignored": ("The padding mask is not applied, only the causal one.",
                        _padding_ignored),
    "inverted": ("The mask is the wrong way round: True must mark what may be attended.",
                 _inverted),
}
