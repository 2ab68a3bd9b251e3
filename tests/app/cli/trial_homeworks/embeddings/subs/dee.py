# Homework 7 - Dee
# Q1 (a) 50000 merges (50257 - 257)
# Q1 (b) 50257 * 768 = 38597376 parameters

import numpy as np


# Q2
def embed(ids, E):
    return E[ids]


# Q3
def cosine_matrix(X):
    n = np.sqrt((X * X).sum(axis=1))
    return (X @ X.T) / n[:, None] / n[None, :]


# Q4 (a) N = V * d   (b) N = 131072000
# Q5 (a) PE(30, 2) = sin(0.3) = 0.2955   (b) PE(30, 1) = cos(30 rad) = 0.1543
# Q6 (a) B  (b) A, B, D  (c) softmax
# Q7 Tying cuts the parameter count by V*d and ties the input and output
#    spaces together, so it works as a regularizer.
# Q8 BPE, WordPiece
