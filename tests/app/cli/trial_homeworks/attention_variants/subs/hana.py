# Homework 8 - Hana
import numpy as np


# Q1
def gqa(x, W_q, W_k, W_v, n_heads, n_kv_heads):
    B, T, d = x.shape
    d_head = d // n_heads
    q = (x @ W_q).reshape(B, T, n_heads, d_head).transpose(0, 2, 1, 3)
    k = (x @ W_k).reshape(B, T, n_kv_heads, d_head).transpose(0, 2, 1, 3)
    v = (x @ W_v).reshape(B, T, n_kv_heads, d_head).transpose(0, 2, 1, 3)
    k = np.repeat(k, n_heads // n_kv_heads, axis=1)
    v = np.repeat(v, n_heads // n_kv_heads, axis=1)
    scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d)
    scores = scores - scores.max(axis=-1, keepdims=True)
    w = np.exp(scores)
    w = w / w.sum(axis=-1, keepdims=True)
    return (w @ v).transpose(0, 2, 1, 3).reshape(B, T, d)


# Q2
def sliding_window_mask(T, w):
    return np.array([[i - w < j <= i for j in range(T)] for i in range(T)])


# Q3
# (a) 512 MiB
# (b) 1.5 GiB saved
# (c) GQA cache / MHA cache = 1/4

# Q4
# (a) F = 4*T**2*d
# (b) F = 2**31 = 2147483648
# (c) 0.0625

# Q5
# (a) B
# (b) 16000
# (c) B, C

# Q6
# (a) GQA is a middle ground between multi-query and multi-head attention: it keeps several
#     K/V heads instead of one, and the K/V heads of MHA are largely redundant anyway.
# (b) The KV cache is smaller so inference needs less memory bandwidth.

# Q7
# Long-range dependencies beyond the window are lost, and the first tokens
# (attention sinks) drop out of the window.
