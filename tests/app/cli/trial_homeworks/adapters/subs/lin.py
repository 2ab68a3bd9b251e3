# Homework 9 -- Lin Zhao
# Written answers are in the comments below each code question.

import numpy as np


# ---------------- Q1 ----------------
def lora_forward(x, W, A, B, alpha):
    r = A.shape[1]
    return x @ W + (alpha / r) * np.einsum("nr,ro->no", x @ A, B)


# ---------------- Q2 ----------------
def quantize_int8(w):
    scale = np.abs(w).max() / 127
    q = np.clip(np.round(w / scale), -128, 127).astype(np.int8)
    return q, scale


# ---------------- Q3 ----------------
# (a) 32 layers * 2 matrices * 16 * (4096 + 4096) = 8,388,608 trainable params
# (b) 16.7M / 131k = 128, so 128x fewer

# ---------------- Q4 ----------------
# (a) 14 GB
# (b) 3.72 GB  (4 bits + 16/64 bits per weight)

# ---------------- Q5 ----------------
# (a) 0.004
# (b) 31
# (c) 0.002

# ---------------- Q6 ----------------
# (a) N = r*(d_in + d_out)
# (b) s = m / (2**(b - 1) - 1)

# ---------------- Q7 ----------------
# (a) B
# (b) A, B, D

# ---------------- Q8 ----------------
# (a) B = 0 makes the initial update zero, so the fine-tuned model starts
#     exactly at the pretrained model. A is random to break the symmetry: if
#     both were zero the gradients would be zero.
# (b) merge the update into W once training ends

# ---------------- Q9 ----------------
# Per-tensor: an outlier stretches the range, so small weights are rounded to
# zero. Per-channel: each channel has its own range -> smaller rounding error.
