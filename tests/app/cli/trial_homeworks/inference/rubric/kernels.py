"""Reference and known bugs for Homework 12's code questions (an online softmax, cross-attention
with an encoder padding mask): run by the grader, never by students."""

import numpy as np


def online_softmax(x, block_size):
    m = -np.inf
    s = 0.0
    for start in range(0, len(x), block_size):
        blk = x[start:start + block_size]
        m_new = max(m, float(blk.max()))
        s = s * np.exp(m - m_new) + np.exp(blk - m_new).sum()
        m = m_new
    return np.exp(x - m) / s


def _no_rescale(x, block_size):
    # the running sum is never rescaled when the running max grows
    m = -np.inf
    s = 0.0
    for start in range(0, len(x), block_size):
        blk = x[start:start + block_size]
        m = max(m, float(blk.max()))
        s = s + np.exp(blk - m).sum()
    return np.exp(x - m) / s


def _no_max(x, block_size):
    s = 0.0
    for start in range(0, len(x), block_size):
        s = s + np.exp(x[start:start + block_size]).sum()
    return np.exp(x) / s


def _drops_tail(x, block_size):
    # only whole blocks are summed: a last, shorter block is left out of the running sum
    m = -np.inf
    s = 0.0
    for start in range(0, len(x) - block_size + 1, block_size):
        blk = x[start:start + block_size]
        m_new = max(m, float(blk.max()))
        s = s * np.exp(m - m_new) + np.exp(blk - m_new).sum()
        m = m_new
    return np.exp(x - m) / s


SOFTMAX_VARIANTS = {
    "no_rescale": ("When the running maximum grows, the running sum is not multiplied by "
                   "exp(m_old - m_new), so earlier blocks are summed against a stale maximum.",
                   _no_rescale),
    "no_max": ("No maximum is subtracted before exp: large logits overflow to inf and the "
               "result is nan.", _no_max),
    "drops_tail": ("The last block, shorter than block_size, is left out of the running sum.",
                   _drops_tail),
}


def _masked_softmax(scores, keep):
    scores = np.where(keep[None, :], scores, -np.inf)
    scores = scores - scores.max(axis=-1, keepdims=True)
    e = np.exp(scores)
    return e / e.sum(axis=-1, keepdims=True)


def cross_attention(q, k, v, src_mask):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    weights = _masked_softmax(scores, src_mask.astype(bool))
    return weights @ v, weights


def _inverted(q, k, v, src_mask):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    weights = _masked_softmax(scores, ~src_mask.astype(bool))
    return weights @ v, weights


def _no_scale(q, k, v, src_mask):
    weights = _masked_softmax(q @ k.T, src_mask.astype(bool))
    return weights @ v, weights


def _zeroed_after(q, k, v, src_mask):
    # softmax over every key, then the padded keys' weights set to 0 (rows no longer sum to 1)
    scores = q @ k.T / np.sqrt(q.shape[-1])
    weights = _masked_softmax(scores, np.ones(k.shape[0], dtype=bool))
    weights = weights * src_mask.astype(bool)[None, :]
    return weights @ v, weights


def _unmasked(q, k, v, src_mask):
    scores = q @ k.T / np.sqrt(q.shape[-1])
    weights = _masked_softmax(scores, np.ones(k.shape[0], dtype=bool))
    return weights @ v, weights


CROSS_VARIANTS = {
    "inverted": ("The mask is inverted: True marks a real source token, so the padding is "
                 "what must be masked out.", _inverted),
    "no_scale": ("The scores are not divided by sqrt(d).", _no_scale),
    "zeroed_after_softmax": ("The padded keys' weights are set to zero after the softmax, so "
                             "the rows no longer sum to 1: mask the scores before it.",
                             _zeroed_after),
    "unmasked": ("The padding mask is not applied: padded source positions get weight.",
                 _unmasked),
}


def padding_gets_nothing(inputs, observed, reference):
    keep = np.asarray(inputs["src_mask"]).astype(bool)
    w = np.asarray(observed["weights"], dtype=float)
    if w.shape != np.asarray(reference["weights"]).shape:
        return False, "weights have the wrong shape"
    if not np.all(np.isfinite(w)):
        return False, "non-finite weights"
    padded = np.abs(w[:, ~keep]).max() if (~keep).any() else 0.0
    rows = np.abs(w.sum(axis=-1) - 1).max()
    said = f"padded weight {padded:.3g}, row sum off by {rows:.3g}"
    return bool(padded < 1e-6 and rows < 1e-6), said


def padded_source(inputs, sizes, rng):
    """The `adjust` of every cross-attention case: a source sentence of a drawn length, padded
    at the end to s positions (True = a real token)."""
    s = sizes["s"]
    length = int(rng.integers(1, s)) if s > 1 else 1
    inputs["src_mask"] = np.arange(s) < length
    return inputs


def unpadded_source(inputs, sizes, rng):
    inputs["src_mask"] = np.ones(sizes["s"], dtype=bool)
    return inputs


def one_real_token(inputs, sizes, rng):
    inputs["src_mask"] = np.arange(sizes["s"]) < 1
    return inputs
