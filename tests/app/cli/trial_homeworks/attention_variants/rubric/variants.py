"""References and known bugs for homework 8 (attention variants): run by the grader, never by
students."""

import numpy as np


def _softmax(s):
    s = s - s.max(axis=-1, keepdims=True)
    e = np.exp(s)
    return e / e.sum(axis=-1, keepdims=True)


def _heads(x, n):
    b, t, width = x.shape
    return x.reshape(b, t, n, width // n).transpose(0, 2, 1, 3)


def _gqa(x, W_q, W_k, W_v, n_heads, n_kv_heads, *, repeat=True, scale=True):
    q = _heads(x @ W_q, n_heads)
    k = _heads(x @ W_k, n_kv_heads)
    v = _heads(x @ W_v, n_kv_heads)
    group = n_heads // n_kv_heads
    if repeat:
        k, v = np.repeat(k, group, axis=1), np.repeat(v, group, axis=1)
    else:
        k, v = np.tile(k, (1, group, 1, 1)), np.tile(v, (1, group, 1, 1))
    d_head = q.shape[-1]
    s = q @ k.transpose(0, 1, 3, 2)
    if scale:
        s = s / np.sqrt(d_head)
    out = _softmax(s) @ v
    b, _, t, _ = out.shape
    return out.transpose(0, 2, 1, 3).reshape(b, t, -1)


def gqa(x, W_q, W_k, W_v, n_heads, n_kv_heads):
    return _gqa(x, W_q, W_k, W_v, n_heads, n_kv_heads)


def _tiled(x, W_q, W_k, W_v, n_heads, n_kv_heads):
    return _gqa(x, W_q, W_k, W_v, n_heads, n_kv_heads, repeat=False)


def _unscaled(x, W_q, W_k, W_v, n_heads, n_kv_heads):
    return _gqa(x, W_q, W_k, W_v, n_heads, n_kv_heads, scale=False)


def _scaled_by_d_model(x, W_q, W_k, W_v, n_heads, n_kv_heads):
    # scores divided by sqrt(d_model) where sqrt(d_head) is asked: q shrunk by sqrt(n_heads)
    return _gqa(x, W_q / np.sqrt(n_heads), W_k, W_v, n_heads, n_kv_heads)


GQA_VARIANTS = {
    "tiled": ("Repeated the key/value heads with np.tile (head h reads kv head h mod n_kv); "
              "query head h reads kv head h // (n_heads / n_kv_heads): np.repeat on the head axis.",
              _tiled),
    "unscaled": ("The scores are not divided by sqrt(d_head).", _unscaled),
    "by_d_model": ("The scores are divided by sqrt(d_model); each head's are divided by "
                   "sqrt(d_head).", _scaled_by_d_model),
}


def sliding_window_mask(T, w):
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    return (j <= i) & (j > i - w)


def _wide(T, w):
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    return (j <= i) & (j >= i - w)


def _both_sides(T, w):
    i = np.arange(T)[:, None]
    j = np.arange(T)[None, :]
    return np.abs(i - j) < w


def _inverted(T, w):
    return ~sliding_window_mask(T, w)


MASK_VARIANTS = {
    "wide": ("Off by one: the window holds w + 1 positions (j >= i - w); it holds the last w, "
             "position i included.", _wide),
    "both_sides": ("The window is not causal: positions after i are visible too.", _both_sides),
    "inverted": ("True marks the hidden positions; the asked mask is True where i may attend.",
                 _inverted),
}
