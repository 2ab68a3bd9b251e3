"""Diagnosis on every path (issue 10, Scope 2): the real bug classes are named whether the
function returns (output, weights), only the output, or needs a mask argument."""

from __future__ import annotations

import pytest

from tests.graders.code.conftest import Grade

B3_BUGS = {
    # bug -> (scores line, weights line(s), words the feedback must use)
    "column softmax": ("s = Q @ K.T / np.sqrt(Q.shape[-1])",
                       "e = np.exp(s)\n    w = e / e.sum(axis=0, keepdims=True)", "column"),
    "exp(S) @ diag(1/rowsum)": ("s = Q @ K.T / np.sqrt(Q.shape[-1])",
                                "e = np.exp(s)\n    w = e @ np.diag(1 / e.sum(axis=1))",
                                "np.diag"),
    "scale by sqrt(number of queries)": ("s = Q @ K.T / np.sqrt(Q.shape[0])",
                                         "w = np.exp(s) / np.exp(s).sum(-1, keepdims=True)",
                                         "number of queries"),
    "divide by raw-score sum": ("s = Q @ K.T / np.sqrt(Q.shape[-1])",
                                "w = np.exp(s) / s.sum(axis=-1, keepdims=True)",
                                "sum of the raw scores"),
    "sqrt(d_model) taken as d_v": ("s = Q @ K.T / np.sqrt(V.shape[-1])",
                                   "w = np.exp(s) / np.exp(s).sum(-1, keepdims=True)", "d_v"),
    "no scaling": ("s = Q @ K.T",
                   "w = np.exp(s) / np.exp(s).sum(-1, keepdims=True)", "sqrt(d_k)"),
    "missing transpose": ("s = Q @ K / np.sqrt(Q.shape[-1])",
                          "w = np.exp(s) / np.exp(s).sum(-1, keepdims=True)", "transposed"),
    "keepdims missing": ("s = Q @ K.T / np.sqrt(Q.shape[-1])",
                         "e = np.exp(s)\n    w = e / np.sum(e, axis=1)", "keepdims"),
    "no max-subtraction": ("s = Q @ K.T / np.sqrt(Q.shape[-1])",
                           "w = np.exp(s) / np.exp(s).sum(-1, keepdims=True)", "maximum"),
}


@pytest.mark.parametrize("returns", ["return w @ V, w", "return w @ V"])
@pytest.mark.parametrize("bug", sorted(B3_BUGS))
def test_b3_bug_classes_are_named_on_every_path(grade: Grade, bug: str, returns: str) -> None:
    scores, weights, words = B3_BUGS[bug]
    source = (f"import numpy as np\ndef attention(Q, K, V):\n    {scores}\n    {weights}\n"
              f"    {returns}\n")
    results = grade("B3", source)
    feedback = " ".join(r.feedback for r in results.values())
    assert words in feedback, (bug, returns, feedback)
    assert words in " ".join(r.student_feedback or "" for r in results.values())


def test_a_missing_v_is_named(grade: Grade) -> None:
    source = ("import numpy as np\ndef attention(Q, K, V):\n"
              "    s = Q @ K.T / np.sqrt(Q.shape[-1])\n"
              "    w = np.exp(s - s.max(-1, keepdims=True))\n"
              "    return w / w.sum(-1, keepdims=True)\n")
    results = grade("B3", source)
    assert "never multiplied by V" in results["b3.output"].feedback


B4_MASKS = {
    "0 instead of -inf": ("s = np.where(np.triu(np.ones((n, n)), k=1) == 1, 0.0, s)",
                          "instead of -inf"),
    "mask after softmax": ("", "after the softmax"),
    "raw-score denominator": ("s = np.where(np.triu(np.ones((n, n)), k=1) == 1, -np.inf, s)",
                              "sum of the raw"),
}


@pytest.mark.parametrize("mask_argument", [False, True])
@pytest.mark.parametrize("bug", sorted(B4_MASKS))
def test_b4_bug_classes_are_named_with_or_without_a_mask_argument(
        grade: Grade, bug: str, mask_argument: bool) -> None:
    line, words = B4_MASKS[bug]
    if bug == "raw-score denominator":
        softmax = "w = np.exp(s) / s.sum(axis=-1, keepdims=True)"
    else:
        softmax = "w = np.exp(s - s.max(-1, keepdims=True))\n    w = w / w.sum(-1, keepdims=True)"
    after = ("    w = np.where(np.triu(np.ones((n, n)), k=1) == 1, 0.0, w)\n"
             if bug == "mask after softmax" else "")
    signature = "Q, K, V, mask" if mask_argument else "Q, K, V"
    source = (f"import numpy as np\ndef masked_attention({signature}):\n"
              "    n = Q.shape[0]\n    s = Q @ K.T / np.sqrt(Q.shape[-1])\n"
              f"    {line}\n    {softmax}\n{after}    return w @ V\n")
    results = grade("B4", source)
    feedback = " ".join(r.feedback for r in results.values())
    assert words in feedback, (bug, feedback)
    assert results["b4.weights"].points == 0
