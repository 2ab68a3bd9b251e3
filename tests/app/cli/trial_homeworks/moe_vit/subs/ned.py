# Homework 10 -- Ned Alvarez
# Written answers are in comments under each question.

import numpy as np


# ===== Q1 =====
def top_k_gating(logits, k):
    """Dense (n, E) gates: softmax over each row's k largest logits."""
    logits = np.asarray(logits, dtype=np.float64)
    order = np.argsort(-logits, axis=-1, kind="mergesort")
    keep = order[:, :k]
    chosen = np.take_along_axis(logits, keep, axis=-1)
    chosen = chosen - chosen.max(axis=-1, keepdims=True)
    weights = np.exp(chosen) / np.exp(chosen).sum(axis=-1, keepdims=True)
    gates = np.zeros_like(logits)
    np.put_along_axis(gates, keep, weights, axis=-1)
    return gates


# ===== Q2 =====
# (a) capacity = 1.25 * 4096 * 2 / 16 = 640 tokens/expert
# (b) 900 - 640 = 260 tokens dropped (they pass through on the residual)

# ===== Q3 =====
# (a) L_aux = 4 * 0.28 = 1.12
# (b) perfectly balanced: L_aux = 1 (the minimum)

# ===== Q4 =====
# (a) 196 patches
# (b) 197 tokens incl. [CLS]
# (c) 5.906e5 parameters (768*768 weights + 768 bias)

# ===== Q5 =====
# (a) L = H*W/P**2 + 1
# (b) N = D*(C*P**2 + 1)

# ===== Q6 =====
# (a) B
# (b) A, B, D

# ===== Q7 =====
# The gate is trained with the experts, so it falls into a self-reinforcing loop: the experts
# it picks early get better and get picked more. Without the loss the load is imbalanced and
# most experts sit idle, while the busy ones overflow their capacity and drop tokens.

# ===== Q8 =====
# (a) Self-attention is permutation invariant; position embeddings tell the model where in the
#     image each patch is.
# (b) Smaller patches -> more tokens -> attention cost grows quadratically.
