"""References and known bugs for homework 7 (embeddings): run by the grader, never by students."""

import numpy as np


def embed(ids, E):
    return E[ids] * np.sqrt(E.shape[1])


def _unscaled(ids, E):
    return E[ids]


def _divided(ids, E):
    return E[ids] / np.sqrt(E.shape[1])


def _by_d(ids, E):
    return E[ids] * E.shape[1]


EMBED_VARIANTS = {
    "unscaled": ("Returned the rows without scaling them by sqrt(d_model).", _unscaled),
    "divided": ("Divided by sqrt(d_model); the embeddings are multiplied by it.", _divided),
    "by_d": ("Multiplied by d_model; the factor is its square root.", _by_d),
}


def cosine_matrix(X):
    unit = X / np.linalg.norm(X, axis=1, keepdims=True)
    return unit @ unit.T


def _dot(X):
    return X @ X.T


def _columns(X):
    unit = X / np.linalg.norm(X, axis=0, keepdims=True)
    return unit @ unit.T


def _one_side(X):
    return (X / np.linalg.norm(X, axis=1, keepdims=True)) @ X.T


COSINE_VARIANTS = {
    "dot": ("Returned the dot products without dividing by the norms.", _dot),
    "columns": ("Normalised the columns (axis 0); each row (one embedding) is normalised.",
                _columns),
    "one_side": ("Normalised only one side of the product; divide by both norms.", _one_side),
}
