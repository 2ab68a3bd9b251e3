# Gus Tran - Homework 5
# (answers to the questions in words are in comments at the end)
import numpy as np


def softmax(x, axis=-1):
    x = x - x.max(axis=axis, keepdims=True)
    e = np.exp(x)
    return e / e.sum(axis=axis, keepdims=True)


def causal_attention(q, k, v):
    T = q.shape[-2]
    scores = q @ np.swapaxes(k, -1, -2)
    scores = scores + np.triu(np.full((T, T), -np.inf), 1)
    return softmax(scores) @ v


def layer_norm(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    std = x.std(axis=-1, keepdims=True)
    return gamma * (x - mean) / (std + eps) + beta


# Q3 (a) params = 3,145,728   (b) FLOPs = 2,147,483,648
# Q4: g = p - y
# Q5 (a) Pre-LN is more stable because the gradients do not vanish: the skip connection carries
#        them directly to the lower layers.
# Q5 (b) The KV cache stores past keys and values so they need not be recomputed for each new token.
