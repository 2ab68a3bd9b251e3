"""A synthetic transformer-basics course for the answer-groups benchmark: one submission per
student, deterministic per seed, as varied as a real class.

Written answers: the right, partly right and wrong statements of tests/support/synthetic.py, each
written in the student's own way (case, punctuation, contractions, filler words, a typo) so
that exact text rarely repeats but the meaning does. Numbers: a few common values, the rubric's
known mistakes, formatting variants ("589,824", "768 × 768 = 589824", "5.9 × 10^5"). Code: the
right NumPy attention and masked attention in several styles, plus the usual bugs (no scaling,
no mask, no max subtraction). A few students hand in a copy of someone else's file.
"""

from __future__ import annotations

import json
import random

from tests.support.synthetic import (
    ATTENTION_NO_SCALE,
    ATTENTION_OK,
    MASKED_NO_MASK,
    MASKED_OK,
    WRITTEN,
    as_text,
)

FILLERS = ["", "", "", "I think ", "Basically, ", "In short: ", "So ", "Well, "]
ENDINGS = ["", "", "", " That's it.", " (see lecture 3)", " I hope this is right."]
CONTRACTIONS = [("cannot", "can't"), ("can't", "cannot"), ("does not", "doesn't"),
                ("is not", "isn't"), ("It is", "It's")]
TYPOS = [("separable", "seperable"), ("gradient", "gradeint"), ("sequence", "sequnce"),
         ("attention", "atention"), ("probability", "probabilty")]

D_HEAD = [("64", 30), ("768/12 = 64", 8), ("64.0", 3), ("12", 3), ("32", 2), ("768", 1)]
PER_MATRIX = [("589824", 20), ("589,824", 8), ("768 × 768 = 589824", 8), ("590592", 5),
              ("49152", 5), ("5.9 × 10^5", 2), ("9216", 1)]
TOTAL = [("1769472", 20), ("1,769,472", 6), ("3 × 589,824 = 1,769,472", 6), ("2359296", 4),
         ("1771776", 3), ("147456", 2)]
NORMALISER = [("11.107", 20), ("e^2 + e + 1 = 11.107", 6), ("11.11", 4), ("11.1", 4),
              ("3", 2), ("10.107", 1)]
SOFTMAX = [("[0.665, 0.245, 0.090]", 20), ("0.665, 0.245, 0.09", 6), ("[0.67, 0.24, 0.09]", 5),
           ("[0.665, 0.245, 0.09]", 4), ("[0.667, 0.333, 0.0]", 2), ("[0.5, 0.3, 0.2]", 1)]

ATTENTION_UNSTABLE = ATTENTION_OK.replace(
    "    scores = scores - scores.max(axis=-1, keepdims=True)\n", "")
ATTENTION_STYLED = """import numpy as np


def attention(Q, K, V):
    # scaled dot-product attention
    dk = K.shape[1]
    logits = np.matmul(Q, K.T) / np.sqrt(dk)
    logits -= np.max(logits, axis=1, keepdims=True)
    w = np.exp(logits)
    w /= np.sum(w, axis=1, keepdims=True)
    return np.matmul(w, V), w
"""
MASKED_TRIL = """import numpy as np

def masked_attention(Q, K, V):
    n = Q.shape[0]
    scores = (Q @ K.T) / np.sqrt(K.shape[-1])
    allowed = np.tril(np.ones((n, K.shape[0]), dtype=bool))
    scores = np.where(allowed, scores, -1e9)
    scores = scores - scores.max(axis=-1, keepdims=True)
    p = np.exp(scores)
    p = p / p.sum(axis=-1, keepdims=True)
    return p @ V, p
"""
CODE_B3 = [(ATTENTION_OK, 20), (ATTENTION_STYLED, 8), (ATTENTION_NO_SCALE, 6),
           (ATTENTION_UNSTABLE, 4)]
CODE_B4 = [(MASKED_OK, 18), (MASKED_TRIL, 8), (MASKED_NO_MASK, 7)]


def _pick(rng: random.Random, weighted: list[tuple[str, int]]) -> str:
    values, weights = zip(*weighted, strict=True)
    return rng.choices(values, weights=weights)[0]


def paraphrase(text: str, rng: random.Random) -> str:
    """The same statement as one student writes it: meaning kept, surface changed."""
    out = text
    if rng.random() < 0.5:
        for old, new in rng.sample(CONTRACTIONS, 2):
            out = out.replace(old, new)
    if rng.random() < 0.15:
        old, new = rng.choice(TYPOS)
        out = out.replace(old, new, 1)
    if rng.random() < 0.2:
        out = out.lower()
    if rng.random() < 0.3:
        out = out.rstrip(".")
    filler = rng.choice(FILLERS)
    if filler:
        out = filler + out[:1].lower() + out[1:]
    return out + rng.choice(ENDINGS)


def answers_for(rng: random.Random) -> dict[str, str]:
    answers: dict[str, str] = {}
    for question, options in WRITTEN.items():
        base = rng.choices(options, weights=[5, 3, 2])[0]
        answers[question] = paraphrase(base, rng) if rng.random() < 0.6 else base
    answers["B1"] = (f"d_head = {_pick(rng, D_HEAD)}. Each of W_Q, W_K, W_V: "
                     f"{_pick(rng, PER_MATRIX)}. Together: {_pick(rng, TOTAL)}.")
    answers["B2"] = f"Sum = {_pick(rng, NORMALISER)}. softmax = {_pick(rng, SOFTMAX)}"
    answers["B3"] = _pick(rng, [(c, w) for c, w in CODE_B3])
    answers["B4"] = _pick(rng, [(c, w) for c, w in CODE_B4])
    if rng.random() < 0.06:
        del answers[rng.choice(sorted(answers))]  # a skipped question
    return answers


# the labels of the free-text uploads: synthetic.py's and "A1)"
STYLES = ("Q{n}", "{n}.", "Question {n}:", "A{n})")


def course(size: int, seed: int = 15) -> list[tuple[str, bytes, str, str]]:
    """(student, raw bytes, file name, content type) for `size` students."""
    rng = random.Random(seed)
    out: list[tuple[str, bytes, str, str]] = []
    for index in range(size):
        student = f"s{index:04d}"
        if out and rng.random() < 0.03:  # a copy of an earlier student's file
            _, raw, name, content_type = rng.choice(out)
            out.append((student, raw, name, content_type))
            continue
        answers = answers_for(rng)
        if rng.random() < 0.5:
            body = json.dumps({"answers": answers}).encode()
            out.append((student, body, f"{student}.json", "application/json"))
        else:
            text = as_text(answers, rng, STYLES).encode()
            out.append((student, text, f"{student}.txt", "text/plain"))
    return out
