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
        h = np.maximum(0, x @ self.W1 + self.b1)
        return h @ self.W2 + self.b2


# Question 3
class KVCache:
    def __init__(self, d):
        self.d = d

    def append(self, k, v):
        self.K = k
        self.V = v
        return self.K, self.V


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

# Question 5: 2,099,712
# Question 6: it is faster because we save the keys and values so they are not recomputed for old tokens.
