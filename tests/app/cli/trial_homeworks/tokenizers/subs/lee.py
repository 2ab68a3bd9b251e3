"""Homework 11 -- Lee Harper.

Code for Q1 and Q2 below; the other answers are in comments.
"""
import numpy as np


# Q1
def bpe_merge(ids, pair, new_id):
    ids = np.asarray(ids)
    out = []
    i = 0
    while i < len(ids):
        if i < len(ids) - 1 and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return np.array(out, dtype=ids.dtype)


# Q2
def count_pairs(ids):
    counts = {}
    for a, b in zip(ids[:-1], ids[1:]):
        counts[(int(a), int(b))] = counts.get((int(a), int(b)), 0) + 1
    return counts


# Q3
# (a) C = 6 * 1e9 * 600e9 = 3.6e21 FLOPs
# (b) D = 20 * 7e9 = 1.4e11 tokens
# (c) N = sqrt(6e23 / 120) = 7.07e10 parameters

# Q4
# (a) 2 * 32 * 8 * 128 * 4 = 262144 bytes per token
# (b) 262144 * 8192 = 2147483648 bytes = 2 GiB

# Q5
# (a) 50257 * 768 = 38597376
# (b) 2 * 128000 * 4096 = 1048576000

# Q6
# (a) r = (N_1 / N_2) ** alpha
# (b) r = 10 ** -0.076 = 0.8395

# Q7
# (a) The base vocabulary has all 256 bytes and every string is a sequence of
#     bytes, so nothing is ever out of vocabulary.
# (b) A token spans several characters, so the model does not see the letters or
#     digits inside it, and numbers are split into tokens inconsistently.

# Q8
# Multi-head latent attention (compress K and V into a small latent) and
# grouped-query attention.
