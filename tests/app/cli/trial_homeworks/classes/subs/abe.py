import numpy as np


# Q1
class Embedding:
    def __init__(self, vocab, d, rng):
        self.W = np.random.randn(vocab, d)

    def forward(self, ids):
        return self.W[ids]


# Q2
class FeedForward:
    def __init__(self, d, d_ff, rng):
        self.W1 = rng.standard_normal((d, d_ff)) / np.sqrt(d)
        self.b1 = np.zeros(d_ff)
        self.W2 = rng.standard_normal((d_ff, d)) / np.sqrt(d_ff)
        self.b2 = np.zeros(d)

    def gelu(self, z):
        return 0.5 * z * (1 + np.tanh(np.sqrt(2 / np.pi) * (z + 0.044715 * z ** 3)))

    def forward(self, x):
        return self.gelu(x @ self.W1 + self.b1) @ self.W2 + self.b2


# Q3
class KVCache:
    def __init__(self, d):
        self.K = np.zeros((0, d))
        self.V = np.zeros((0, d))

    def append(self, k, v):
        self.K = np.vstack([self.K, k])
        self.V = np.vstack([self.V, v])
        return self.K, self.V


# Q4
class SinusoidalPositions:
    def __init__(self, d_model):
        self.d_model = d_model

    def forward(self, T):
        half = self.d_model // 2
        angle = np.arange(T)[:, None] / 10000 ** (2 * np.arange(half)[None, :] / self.d_model)
        return np.concatenate([np.sin(angle), np.cos(angle)], axis=-1)


# Q5: 2,099,712
# Q6: the cache keeps the keys and values of the previous tokens (they never change), so at
# each step only the new token's key and value are computed.

if __name__ == "__main__":
    rng = np.random.default_rng(0)
    print(FeedForward(4, 8, rng).forward(np.ones((2, 4))).shape)
    print(SinusoidalPositions(8).forward(5).shape)
