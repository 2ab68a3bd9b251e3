import numpy as np

# Question 1
class Embedding:
    def __init__(self, vocab, d, rng):
        self.W = rng.standard_normal((vocab, d))

    def forward(self, ids):
        return self.W[ids]


# Question 2
class FeedForward:
    def __init__(self, d, d_ff, rng):
        self.W1 = rng.standard_normal((d, d_ff)) / np.sqrt(d)
        self.b1 = np.zeros(d_ff)
        self.W2 = rng.standard_normal((d_ff, d)) / np.sqrt(d_ff)
        self.b2 = np.zeros(d)

    def forward(self, x):
        return (x @ self.W1 + self.b1) @ self.W2 + self.b2


# Question 3
class KVCache:
    def __init__(self, d):
        self.K = np.zeros((0, d))

    def append(self, k, v):
        self.K = np.concatenate([self.K, k])
        return self.K, v


# Question 4
class SinusoidalPositions:
    def __init__(self, d_model):
        self.d_model = d_model

    def forward(self, T):
        pe = np.zeros((T, self.d_model))
        pos = np.arange(T)[:, None]
        div = 10000 ** (np.arange(0, self.d_model, 2) / self.d_model)
        pe[:, 0::2] = np.sin(pos / div)
        pe[:, 1::2] = np.cos(pos / div)
        return pe


# Question 5
# 2,099,712
# Question 6
# Caching: old keys/values are reused, only the new token is computed.
