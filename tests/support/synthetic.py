"""Synthetic but realistic transformer-basics submissions for the service benchmarks.

A mixture of JSON uploads and free-text documents (labels as students write them), each answer
drawn from right statements, partly right ones and the common mistakes; deterministic per seed.
"""

from __future__ import annotations

import json
import random

WRITTEN = {
    "A1": [
        "XOR is not linearly separable: no single line separates the 1s from the 0s. A perceptron "
        "computes a weighted sum and a threshold, so its decision boundary is one hyperplane. An "
        "MLP adds a hidden layer with a non-linear activation, which combines two boundaries.",
        "A perceptron is a linear classifier so it can't do XOR. With hidden layers it works.",
        "The perceptron fails on XOR because it has no bias term; more training data would fix it.",
    ],
    "A2": [
        "W2(W1x+b1)+b2 = (W2W1)x + (W2b1+b2), so stacked linear layers are one linear map. "
        "Backprop multiplies local derivatives by the chain rule; the sigmoid derivative is at "
        "most 0.25, so gradients vanish with depth, while ReLU has derivative 1 for x > 0.",
        "Linear layers compose into a linear function. Gradients get small in deep networks.",
        "ReLU is faster to compute than sigmoid, that is why it is better.",
    ],
    "A3": [
        "Self-attention is permutation-equivariant so it needs positional information. Sinusoidal "
        "encodings are fixed and extrapolate; learned absolute embeddings are limited to the "
        "training length; RoPE rotates q and k so the score depends on relative position.",
        "Transformers do not know word order. RoPE rotates queries and keys.",
        "Positional encodings make the model bigger and more accurate.",
    ],
    "A4": [
        "The query is what a token looks for, the key what it offers, the value the content "
        "passed on. The dot product has variance d_k, so dividing by sqrt(d_k) keeps the softmax "
        "from saturating. The diagonal is each token attending to itself.",
        "Q, K and V are projections of the input. We scale to make numbers smaller.",
        "Keys store the answer and values are the questions.",
    ],
    "A5": [
        "Several heads attend to different positions and subspaces in parallel. d_model is the "
        "width, h the number of heads, d_head = d_model / h, outputs are concatenated and "
        "projected by W_O.",
        "More heads means more parameters and so a better model.",
        "Multi-head attention lets the model look at different things; d_head = d_model/h.",
    ],
    "A6": [
        "Greedy decoding picks the most likely token each step, which can miss the most likely "
        "sequence. Beam search keeps the k best partial sequences by log-probability. Example: "
        "greedy picks 'the' (0.5) but 'a cat' has higher joint probability.",
        "Greedy is fast but not optimal. Beam search keeps several candidates.",
        "Beam search always finds the best translation.",
    ],
}

B1 = [
    ("64", "589824", "1769472"),
    ("768/12 = 64", "768 × 768 = 589,824", "3 × 589,824 = 1,769,472"),
    ("64", "49152", "147456"),
    ("64", "590592", "1771776"),
    ("64", "589824", "2359296"),
    ("12", "9216", "27648"),
]
B2 = [
    ("11.107", "[0.665, 0.245, 0.090]"),
    ("e^2 + e + 1 = 11.107", "0.665, 0.245, 0.09"),
    ("11.1", "[0.67, 0.24, 0.09]"),
    ("3", "[0.667, 0.333, 0.0]"),
]
ATTENTION_OK = """import numpy as np

def attention(Q, K, V):
    d_k = Q.shape[-1]
    scores = Q @ K.T / np.sqrt(d_k)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights
"""
ATTENTION_NO_SCALE = ATTENTION_OK.replace(" / np.sqrt(d_k)", "")
MASKED_OK = """import numpy as np

def masked_attention(Q, K, V):
    n, m = Q.shape[0], K.shape[0]
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    mask = np.triu(np.ones((n, m), dtype=bool), k=1)
    scores = np.where(mask, -np.inf, scores)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights
"""
MASKED_NO_MASK = MASKED_OK.replace("    scores = np.where(mask, -np.inf, scores)\n", "")


def _answers(rng: random.Random) -> dict[str, str]:
    answers = {q: rng.choice(options) for q, options in WRITTEN.items()}
    d_head, per, total = rng.choice(B1)
    norm, values = rng.choice(B2)
    answers["B1"] = f"d_head = {d_head}. Each of W_Q, W_K, W_V: {per}. Together: {total}."
    answers["B2"] = f"Sum = {norm}. softmax = {values}"
    answers["B3"] = rng.choice([ATTENTION_OK, ATTENTION_OK, ATTENTION_NO_SCALE])
    answers["B4"] = rng.choice([MASKED_OK, MASKED_OK, MASKED_NO_MASK])
    if rng.random() < 0.1:
        del answers[rng.choice(list(answers))]  # a skipped question
    return answers


def as_text(answers: dict[str, str], rng: random.Random,
            styles: tuple[str, ...] = ("Q{n}", "{n}.", "Question {n}:")) -> str:
    """The answers as a free-text document, labelled in one of `styles` (Part B restarts)."""
    style = rng.choice(list(styles))
    parts: list[str] = []
    for n, q in enumerate(["A1", "A2", "A3", "A4", "A5", "A6"], start=1):
        if q in answers:
            parts.append(f"{style.format(n=n)} {answers[q]}")
    parts.append("Part B")
    for n, q in enumerate(["B1", "B2", "B3", "B4"], start=1):
        if q in answers:
            body = answers[q]
            if q in ("B3", "B4"):
                body = f"```python\n{body}```"
            parts.append(f"{style.format(n=n)} {body}")
    return "\n\n".join(parts) + "\n"


def submission(index: int, seed: int = 0) -> tuple[bytes, str, str]:
    """(raw bytes, file name, content type) of synthetic submission `index`."""
    rng = random.Random(seed * 1_000_003 + index)
    answers = _answers(rng)
    student = f"s{index:05d}"
    if rng.random() < 0.5:
        body = json.dumps({"student_id": student, "answers": answers}).encode()
        return body, f"{student}.json", "application/json"
    return as_text(answers, rng).encode(), f"{student}.txt", "text/plain"
