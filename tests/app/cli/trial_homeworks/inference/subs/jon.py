"""Homework 12 - Jon Bakker

Written answers are in the comments below each function.
"""
import numpy as np


# ---------------- Q1 ----------------
def online_softmax(x, block_size):
    x = np.asarray(x, dtype=np.float64)
    m_run = -np.inf
    s_run = 0.0
    for lo in range(0, x.shape[0], block_size):
        hi = min(lo + block_size, x.shape[0])
        m_blk = x[lo:hi].max()
        if m_blk > m_run:
            s_run *= np.exp(m_run - m_blk)
            m_run = m_blk
        s_run += np.exp(x[lo:hi] - m_run).sum()
    return np.exp(x - m_run) / s_run


# ---------------- Q2 ----------------
def cross_attention(q, k, v, src_mask):
    T, d = q.shape
    att = (q @ k.T) / np.sqrt(d)
    att = att.copy()
    att[:, np.logical_not(src_mask)] = -1e30
    att = np.exp(att - att.max(axis=1)[:, None])
    att = att / att.sum(axis=1)[:, None]
    return att @ v, att


# ---------------- Q3 ----------------
# (a) scale = 3.81 / 127 = 0.03
# (b) 0.5 / 0.03 = 16.67 -> rounds to 17
# (c) worst reconstruction error: 0.01
# (d) 1.2 / 127 = 9.45e-3

# ---------------- Q4 ----------------
# (a) 7e9 params * 2 bytes = 14 GB per step, / 1 TB/s = 0.014 s = 14 ms
# (b) 71.4 tokens/s
# (c) 32 * 71.4 = 2285 tokens/s
# (d) 256 * 0.014 s = 3.584 s

# ---------------- Q5 ----------------
# (a) E = (1 - alpha**(gamma + 1)) / (1 - alpha)
# (b) E = (1 - 0.8**5) / 0.2 = 3.3616

# ---------------- Q6 ----------------
# a) A   b) A C E

# ---------------- Q7 ----------------
# (a) In decoding every step loads all the weights from HBM to produce one token; the
#     matmuls are matrix-vector products with about 1 FLOP per byte loaded, so the
#     tensor cores are idle most of the time waiting for memory.
# (b) We lose precision because of rounding to 255 levels. An outlier makes the
#     absmax large, so the quantization step is large and most weights round to 0.

# ---------------- Q8 ----------------
# Continuous batching; PagedAttention.
