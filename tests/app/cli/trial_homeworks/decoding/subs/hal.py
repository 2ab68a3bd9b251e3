"""Hal Nguyen, homework 4.

Q1: NLL = 1.1, perplexity = exp(1.1) = 3.004
Q2: target = [0.925, 0.025, 0.025, 0.025], loss = 0.5026
Q3: (a) 2.5e-4  (b) 7.5e-4
Q4: (a) 20  (b) 10  (c) 62
Q5: (a) 0.125  (b) -0.375
Q6: r = exp((z_i - z_j)/T)
Q9: (a) small T -> softmax becomes one-hot on the max logit -> sampling = argmax = greedy.
    (b) log-probs are negative, each token lowers the sum, so short hypotheses score higher.
"""
import numpy as np


def softmax(x):
    e = np.exp(x - np.max(x))
    return e / e.sum()


def top_p(logits, p):
    probs = softmax(logits)
    order = np.argsort(-probs)
    csum = np.cumsum(probs[order])
    cut = np.where(csum >= p)[0][0]
    kept = order[: cut + 1]
    res = np.zeros_like(probs)
    res[kept] = probs[kept]
    return res / np.sum(res)


def attention_mask(pad):
    T = pad.shape[1]
    causal = np.tril(np.ones((T, T)), k=-1).astype(bool)
    return causal & ~pad[:, None, :]
