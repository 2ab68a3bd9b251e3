import numpy as np

### Q1
class Embedding:
    def __init__(self, vocab, d, rng):
        self.W = rng.standard_normal((vocab, d))

    def forward(self, ids):
        return self.W[ids]


### Q2
class FeedForward:
    def __init__(self, d, d_ff, rng):
        self.W1 = rng.standard_normal((d, d_ff)) / np.sqrt(d)
        self.b1 = np.zeros(d_ff)
        self.W2 = rng.standard_normal((d_ff, d)) / np.sqrt(d_ff)
        self.b2 = np.zeros(d)

    def forward(self, x):
        h = np.maximum(0, x @ self.W1 + self.b1)
        return h @ self.W2 + self.b2


### Q3
class KVCache:
    """keys and values as python lists of rows"""
    def __init__(self, d):
        self.d = d
        self.k_rows = []
        self.v_rows = []

    def append(self, k, v):
        self.k_rows.extend(list(k))
        self.v_rows.extend(list(v))
        return np.array(self.k_rows), np.array(self.v_rows)


### Q4
class SinusoidalPositions:
    def __init__(self, d_model):
        self.d_model = d_model

    def forward(self, T):
        pe = np.zeros((T, self.d_model))
        for pos in range(T):
            for i in range(self.d_model // 2):
                pe[pos, 2 * i] = np.sin(pos / 10000 ** (i / self.d_model))
                pe[pos, 2 * i + 1] = np.cos(pos / 10000 ** (i / self.d_model))
        return pe

### Q5
# 2099712

### Q6
# Earlier tokens' keys and values do not change, so we keep them in the cache and reuse them;
# each step only the new token's key and value are computed.
