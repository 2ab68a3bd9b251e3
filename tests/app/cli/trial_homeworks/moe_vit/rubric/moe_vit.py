"""References and known bugs for homework 10 (mixture-of-experts routing and ViT patching): run
by the grader, never by students."""

import numpy as np


def _softmax(z):
    z = z - np.max(z, axis=-1, keepdims=True)
    e = np.exp(z)
    return e / np.sum(e, axis=-1, keepdims=True)


def _chosen(logits, k):
    # stable sort of -logits: among equal logits the lower expert index comes first
    return np.argsort(-logits, axis=-1, kind="stable")[:, :k]


def _gates(logits, idx):
    picked = np.take_along_axis(logits, idx, axis=-1)
    gates = np.zeros_like(logits, dtype=float)
    np.put_along_axis(gates, idx, _softmax(picked), axis=-1)
    return gates


def top_k_gating(logits, k):
    return _gates(logits, _chosen(logits, k))


def _full_softmax_masked(logits, k):
    probs = _softmax(logits)
    gates = np.zeros_like(probs)
    idx = _chosen(logits, k)
    np.put_along_axis(gates, idx, np.take_along_axis(probs, idx, axis=-1), axis=-1)
    return gates


def _uniform(logits, k):
    gates = np.zeros_like(logits, dtype=float)
    np.put_along_axis(gates, _chosen(logits, k), 1.0 / k, axis=-1)
    return gates


def _higher_index_on_ties(logits, k):
    # np.argsort(logits)[:, -k:]: ascending, so among equal logits the higher index is taken
    return _gates(logits, np.argsort(logits, axis=-1, kind="stable")[:, -k:])


def _smallest(logits, k):
    return _gates(logits, np.argsort(logits, axis=-1, kind="stable")[:, :k])


def _dense_softmax(logits, k):
    return _softmax(logits)


GATING_VARIANTS = {
    "unrenormalised": ("the softmax is taken over all experts and the chosen ones' "
                       "probabilities are not renormalised to sum to one", _full_softmax_masked),
    "uniform": ("each chosen expert gets 1/k instead of a softmax over the chosen logits",
                _uniform),
    "higher index on ties": ("ties are broken toward the higher expert index (an ascending "
                             "argsort's last k)", _higher_index_on_ties),
    "smallest": ("the k smallest logits are chosen, not the k largest", _smallest),
    "dense": ("no expert is dropped: a softmax over every expert", _dense_softmax),
}


def tie_at_kth(inputs, sizes, rng):
    """Make the k-th and (k+1)-th largest logits of every row equal."""
    logits = np.array(inputs["logits"], dtype=float)
    k = sizes["k"]
    for row in logits:
        order = np.argsort(-row, kind="stable")
        row[order[k]] = row[order[k - 1]]
    return {**inputs, "logits": logits}
