# Kim Soo-ah, HW12
import numpy as np


def online_softmax(x, block_size):
    """Q1: FlashAttention-style softmax with a running max and a running denominator."""
    mx, denom = float("-inf"), 0.0
    i = 0
    while i < len(x):
        chunk = x[i:i + block_size]
        cmax = float(np.max(chunk))
        if cmax > mx:
            denom = denom * np.exp(mx - cmax)
            mx = cmax
        denom += float(np.sum(np.exp(chunk - mx)))
        i += block_size
    return np.exp(x - mx) / denom


def cross_attention(q, k, v, src_mask):
    """Q2"""
    scores = q @ k.T / np.sqrt(q.shape[-1])
    # TODO: src_mask
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ v, weights


ANSWERS = """
Q3  (a) 0.03   (b) 17   (c) 0.01   (d) 0.0095

Q4  (a) 14 ms per step
    (b) 71.4 tokens/s
    (c) 2,286 tokens/s
    (d) 3.6 s

Q5  (a) E = (1 - alpha^(gamma+1)) / (1 - alpha)
    (b) E = 3.36

Q6  (a) A  (b) A, C, E

Q7  (a) Each generated token needs a full pass that reads every weight from memory, and
    there is only one token's worth of math to do with them (a matrix-vector product), so the
    memory bandwidth limits the speed.
    (b) Precision: int8 has only 256 values. One outlier sets the scale so the other weights
    use only a few of the levels.

Q8  speculative decoding and FlashAttention
"""
