"""Reference and known bugs for causal_attention(q, k, v): run by the grader, never by students.

The same function is asked for on one sequence, (T, d), and on a batch, (B, T, d); the battery
draws batches and `unbatched` takes the first sequence of a draw for the (T, d) cases."""

from typing import Any

import numpy as np


def _softmax(s):
    s = s - s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True)


def _scores(q, k):
    return q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])


def _masked(s, keep):
    t = s.shape[-1]
    return np.where(keep(np.ones((t, t), dtype=bool)), s, -np.inf)


def causal_attention(q, k, v):
    return _softmax(_masked(_scores(q, k), np.tril)) @ v


def _strict_mask(q, k, v):
    s = _scores(q, k)
    t = s.shape[-1]
    s = np.where(np.tril(np.ones((t, t), dtype=bool), k=-1), s, -1e9)
    return _softmax(s) @ v


def _future_mask(q, k, v):
    return _softmax(_masked(_scores(q, k), np.triu)) @ v


def _no_mask(q, k, v):
    return _softmax(_scores(q, k)) @ v


def _no_scale(q, k, v):
    return causal_attention(q * np.sqrt(q.shape[-1]), k, v)


def _over_queries(q, k, v):
    s = _masked(_scores(q, k), np.tril)
    e = np.exp(s - s.max(axis=-2, keepdims=True))
    return (e / e.sum(axis=-2, keepdims=True)) @ v


def unbatched(inputs: dict[str, Any], sizes: dict[str, int], rng: Any) -> dict[str, Any]:
    """The (T, d) call: the first sequence of the drawn batch, without the batch axis."""
    return {name: np.array(value)[0] for name, value in inputs.items()}


# name -> (feedback, implementation)
VARIANTS = {
    "strict_mask": ("The mask is off by one: it hides the diagonal too, so a token cannot "
                    "attend to itself.", _strict_mask),
    "future_mask": ("The mask is the wrong way round: each query attends to the later keys.",
                    _future_mask),
    "no_mask": ("No causal mask: every query attends to every key.", _no_mask),
    "no_scale": ("The scores are not divided by sqrt(d).", _no_scale),
    "over_queries": ("The softmax normalises over the queries (axis -2), not over the keys.",
                     _over_queries),
}
