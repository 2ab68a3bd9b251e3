"""Homework 7, Ole.

Q1: (a) 50,000 merges  (b) 38,597,376 parameters
Q4: (a) N = V*d  (b) 131,072,000 parameters saved
Q5: (a) 0.29552  (b) 0.15425
Q6: (a) B  (b) A, B, D  (c) softmax
Q7: Tying removes a whole V x d matrix, so fewer parameters, and the output layer then
    shares the semantic space of the input embeddings (a regularizer).
Q8: BPE, unigram language model
"""
import math

import numpy as np


def embed(ids, E):
    d_model = E.shape[1]
    return np.stack([E[row] for row in ids]) * math.sqrt(d_model)


def cosine_matrix(X):
    rows = []
    for a in X:
        row = []
        for b in X:
            row.append(float(np.dot(a, b) / (np.linalg.norm(a) * np.linalg.norm(b))))
        rows.append(row)
    return rows
