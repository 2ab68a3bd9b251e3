"""HW8 (Ike). Written answers are in the comments."""
import numpy as np


def gqa(x, W_q, W_k, W_v, n_heads, n_kv_heads):
    """Grouped-query attention, einsum version."""
    B, T, d = x.shape
    hd = d // n_heads
    g = n_heads // n_kv_heads
    q = (x @ W_q).reshape(B, T, n_heads, hd)
    k = (x @ W_k).reshape(B, T, n_kv_heads, hd)
    v = (x @ W_v).reshape(B, T, n_kv_heads, hd)
    kv_index = np.arange(n_heads) // g          # which kv head each query head reads
    k, v = k[:, :, kv_index], v[:, :, kv_index]
    att = np.einsum('bthd,bshd->bhts', q, k) / np.sqrt(hd)
    att = np.exp(att - att.max(-1, keepdims=True))
    att /= att.sum(-1, keepdims=True)
    return np.einsum('bhts,bshd->bthd', att, v).reshape(B, T, d)


def sliding_window_mask(T, w):
    ones = np.ones((T, T), dtype=int)
    return np.tril(ones) - np.tril(ones, -w)


# ---- Q3 ----
# bytes per token per layer = 2 (K,V) * 8 heads * 128 * 2 bytes = 4096
gqa_bytes = 2 * 32 * 8 * 128 * 4096 * 2   # = 536870912  (a)
mha_bytes = 2 * 32 * 32 * 128 * 4096 * 2  # = 2147483648
saved = mha_bytes - gqa_bytes             # = 1610612736 bytes saved  (b)
# (c) the cache is reduced by a factor of 4

# ---- Q4 ----
# (a) F = 4 d T^2
# (b) F = 2147483648 FLOPs
# (c) linear attention: 16x fewer FLOPs

# ---- Q5 ----
# (a) B  (b) 16,000  (c) keys and values

# ---- Q6 ----
# (a) Each query head keeps its own projection, so the heads still attend differently.
#     You can also start from an MHA checkpoint and uptrain.
# (b) faster decoding because less KV cache has to be read per generated token

# ---- Q7 ----
# Cannot do needle-in-a-haystack style retrieval of something 10k tokens back.
# The receptive field only grows linearly with depth (L * w), info has to pass through layers.
