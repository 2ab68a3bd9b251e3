"""The math behind the interfaces students actually write (issue 10, Scope 1): output only,
the pair reversed, a required mask argument in every convention in use, optional extra
parameters, batched inputs. The interface item is deducted, the rest earns the rubric's share,
the feedback says what was adapted, and confidence drops below 1."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.graders.code.conftest import Grade

SOFTMAX = {
    "stable helper": ("def softmax(x, axis=-1):\n"
                      "    e = np.exp(x - np.max(x, axis=axis, keepdims=True))\n"
                      "    return e / e.sum(axis=axis, keepdims=True)\n\n", "softmax({s})"),
    "inline": ("", "np.exp({s} - {s}.max(axis=-1, keepdims=True)) / np.exp({s} - {s}.max("
                   "axis=-1, keepdims=True)).sum(axis=-1, keepdims=True)"),
}
RETURNS = {"pair": "return {o}, {w}", "swapped": "return {w}, {o}", "output": "return {o}",
           "list pair": "return [{o}, {w}]"}
# What each return form earns on a correct B3 under the rubric's adaptation policy.
B3_POINTS = {"pair": Decimal(10), "list pair": Decimal(10), "swapped": Decimal(9),
             "output": Decimal(8)}


def b3_source(softmax: str, returns: str, extra: str, names: tuple[str, str, str]) -> str:
    helper, call = SOFTMAX[softmax]
    scores, weights, output = names
    return ("import numpy as np\n\n" + helper +
            f"def attention(Q, K, V{extra}):\n"
            f"    {scores} = Q @ K.T / np.sqrt(Q.shape[-1])\n"
            f"    {weights} = {call.format(s=scores)}\n"
            f"    {output} = {weights} @ V\n"
            f"    {RETURNS[returns].format(o=output, w=weights)}\n")


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(softmax=st.sampled_from(sorted(SOFTMAX)), returns=st.sampled_from(sorted(RETURNS)),
       extra=st.sampled_from(["", ", mask=None", ", verbose=False", ", mask=None, scale=None"]),
       names=st.sampled_from([("scores", "weights", "output"), ("s", "attn", "out"),
                              ("logits", "p", "result")]))
def test_a_correct_b3_earns_what_its_return_form_is_worth(
        grade: Grade, softmax: str, returns: str, extra: str,
        names: tuple[str, str, str]) -> None:
    results = grade("B3", b3_source(softmax, returns, extra, names))
    total = sum(r.points for r in results.values())
    assert total == B3_POINTS[returns], {k: (r.points, r.feedback) for k, r in results.items()}
    interface = results["b3.interface"]
    if returns in ("swapped", "output"):
        assert interface.points == 0
        assert ("reverse" if returns == "swapped" else "only the output") in interface.feedback
        assert all(r.confidence < 1 for r in results.values())
    else:
        assert all(r.confidence == 1.0 for r in results.values())


MASK_USES = {
    # convention the student expects -> how the function applies it
    "boolean future": "scores = np.where(mask, -np.inf, scores)",
    "0/1 keep": "scores = np.where(mask == 0, -1e9, scores)",
    "keep, truthy": "scores = np.where(mask, scores, -np.inf)",
    "additive": "scores = scores + mask",
    "multiplicative keep": "scores = scores * mask + (1 - mask) * -1e9",
}


@pytest.mark.parametrize("use", sorted(MASK_USES))
@pytest.mark.parametrize("returns", ["pair", "output"])
def test_a_required_mask_argument_is_passed_in_the_convention_that_makes_it_causal(
        grade: Grade, use: str, returns: str) -> None:
    source = ("import numpy as np\n\n"
              "def masked_attention(Q, K, V, mask):\n"
              "    scores = Q @ K.T / np.sqrt(Q.shape[-1])\n"
              f"    {MASK_USES[use]}\n"
              "    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))\n"
              "    weights = weights / weights.sum(axis=-1, keepdims=True)\n"
              f"    {RETURNS[returns].format(o='weights @ V', w='weights')}\n")
    results = grade("B4", source)
    points = {k: r.points for k, r in results.items()}
    assert points["b4.interface"] == 0
    # mask_argument costs a third; weights read through V = I cost half (the smaller applies).
    assert points["b4.causal"] == 2, results["b4.causal"].feedback
    assert points["b4.output"] == 2
    assert points["b4.weights"] == (2 if returns == "pair" else Decimal("1.5"))
    assert "mask argument" in results["b4.causal"].feedback
    assert "mask argument" in (results["b4.causal"].student_feedback or "")


def test_batched_only_code_is_called_with_a_batch_of_one(grade: Grade) -> None:
    source = ("import numpy as np\n\n"
              "def attention(Q, K, V):\n"
              "    scores = Q @ K.transpose(0, 2, 1) / np.sqrt(Q.shape[-1])\n"
              "    w = np.exp(scores - scores.max(axis=-1, keepdims=True))\n"
              "    w = w / w.sum(axis=-1, keepdims=True)\n"
              "    return w @ V, w\n")
    results = grade("B3", source)
    assert results["b3.interface"].points == 0
    assert "batch" in results["b3.interface"].feedback
    assert sum(r.points for r in results.values()) == 9


def test_returning_only_the_output_names_the_bug_behind_it(grade: Grade) -> None:
    # Column softmax, output only: diagnosed through the weights read with V = I.
    source = ("import numpy as np\n"
              "def attention(Q, K, V):\n"
              "    e = np.exp(Q @ K.T / np.sqrt(K.shape[-1]))\n"
              "    return (e / e.sum(axis=0, keepdims=True)) @ V\n")
    results = grade("B3", source)
    assert results["b3.row_softmax"].points == 0
    assert "column" in results["b3.output"].feedback


def test_uniform_weights_earn_at_most_two_points_per_question(grade: Grade) -> None:
    b3 = ("import numpy as np\n"
          "def attention(Q, K, V):\n"
          "    w = np.ones((Q.shape[0], K.shape[0])) / K.shape[0]\n"
          "    return w @ V, w\n")
    b4 = ("import numpy as np\n"
          "def masked_attention(Q, K, V):\n"
          "    n = Q.shape[0]\n"
          "    w = np.tril(np.ones((n, n)))\n"
          "    w = w / w.sum(axis=-1, keepdims=True)\n"
          "    return w @ V, w\n")
    for question, source in (("B3", b3), ("B4", b4)):
        results = grade(question, source)
        assert sum(r.points for r in results.values()) <= 2, {
            k: (r.points, r.feedback) for k, r in results.items()}


def test_an_identity_then_a_crash_earns_no_causal_credit(grade: Grade) -> None:
    source = ("import numpy as np\n"
              "def masked_attention(Q, K, V):\n"
              "    weights = np.eye(Q.shape[0])\n"
              "    return undefined_name, weights\n")
    results = grade("B4", source)
    assert results["b4.causal"].points == 0


def test_an_exception_quoting_the_inputs_is_summarised_for_the_student(grade: Grade) -> None:
    source = ("import numpy as np\n"
              "def attention(Q, K, V):\n"
              "    raise ValueError(f'cannot handle {Q} and {K}')\n")
    results = grade("B3", source)
    for result in results.values():
        student = result.student_feedback or ""
        assert "ValueError" in student
        assert "cannot handle [" not in student and "[[" not in student
        assert "cannot handle [" in result.feedback  # staff see it


def test_an_optional_mask_argument_is_never_passed(grade: Grade) -> None:
    """The asked interface has no mask: a function that runs without one is graded on what it
    does without one, and this one does not mask by itself."""
    source = ("import numpy as np\n"
              "def masked_attention(Q, K, V, mask=None):\n"
              "    scores = Q @ K.T / np.sqrt(Q.shape[-1])\n"
              "    if mask is not None:\n"
              "        scores = scores + mask\n"
              "    w = np.exp(scores - scores.max(axis=-1, keepdims=True))\n"
              "    w = w / w.sum(axis=-1, keepdims=True)\n"
              "    return w @ V, w\n")
    results = grade("B4", source)
    assert {k: r.points for k, r in results.items()} == {
        "b4.interface": 1, "b4.causal": 0, "b4.weights": 0, "b4.output": 0}
    assert "mask argument" not in results["b4.causal"].feedback
    assert "No causal mask" in results["b4.causal"].feedback


def test_a_dict_of_results_and_a_required_d_k_are_read(grade: Grade) -> None:
    source = ("import numpy as np\n"
              "def attention(Q, K, V, d_k):\n"
              "    scores = Q @ K.T / np.sqrt(d_k)\n"
              "    w = np.exp(scores - scores.max(axis=-1, keepdims=True))\n"
              "    w = w / w.sum(axis=-1, keepdims=True)\n"
              "    return {'attention_weights': w, 'output': w @ V}\n")
    results = grade("B3", source)
    assert results["b3.interface"].points == 0
    assert sum(r.points for r in results.values()) == 9, {
        k: (r.points, r.feedback) for k, r in results.items()}
    assert "d_k" in results["b3.interface"].feedback


def test_rounded_results_cost_the_rubric_share_on_the_matching_items_only(
        grade: Grade) -> None:
    source = ("import numpy as np\n"
              "def attention(Q, K, V):\n"
              "    s = Q @ K.T / np.sqrt(Q.shape[-1])\n"
              "    w = np.exp(s - s.max(axis=-1, keepdims=True))\n"
              "    w = w / w.sum(axis=-1, keepdims=True)\n"
              "    return np.round(w @ V, 4), np.round(w, 4)\n")
    results = grade("B3", source)
    points = {k: r.points for k, r in results.items()}
    assert points == {"b3.interface": 1, "b3.scaling": 2, "b3.row_softmax": 2,
                      "b3.weights": 1, "b3.output": 1, "b3.stable": Decimal("0.5")}, {
        k: r.feedback for k, r in results.items()}
    assert "rounded" in results["b3.output"].feedback
    assert results["b3.output"].confidence < 1


@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(single=st.sampled_from([
    "    Q, K, V = (np.asarray(t, dtype=np.float32) for t in (Q, K, V))\n",
    "    Q, K, V = Q.astype('float32'), K.astype('float32'), V.astype(np.float32)\n",
    "    Q = np.float32(Q)\n    K = np.float32(K)\n    V = np.float32(V)\n"]),
       eps=st.sampled_from(["", " + 1e-9", " + 1e-7", " + 1e-6"]))
def test_attention_in_single_precision_is_right_not_rounded(
        grade: Grade, single: str, eps: str) -> None:
    """Learners used to PyTorch compute in float32, or add a small epsilon to the softmax's
    denominator: their results differ from the float64 reference by about 1e-7 relative
    (more where an output entry is near 0). A careful grader gives full credit, not the
    share the rubric gives rounded results."""
    source = ("import numpy as np\n"
              "def attention(Q, K, V):\n" + single +
              "    s = Q @ K.T / np.sqrt(Q.shape[-1])\n"
              "    w = np.exp(s - s.max(axis=-1, keepdims=True))\n"
              f"    w = w / (w.sum(axis=-1, keepdims=True){eps})\n"
              "    return w @ V, w\n")
    results = grade("B3", source)
    short = {k: (r.status, r.points, r.confidence, r.feedback) for k, r in results.items()
             if r.points != r.max_points or r.confidence != 1.0}
    assert not short, short


def test_code_for_batch_and_head_dimensions_is_called_with_one_of_each(grade: Grade) -> None:
    source = ("import numpy as np\n\n"
              "def masked_attention(Q, K, V):\n"
              "    b, h, n, d = Q.shape\n"
              "    s = Q @ K.transpose(0, 1, 3, 2) / np.sqrt(d)\n"
              "    s = np.where(np.triu(np.ones((n, n)), k=1)[None, None] == 1, -np.inf, s)\n"
              "    w = np.exp(s - s.max(axis=-1, keepdims=True))\n"
              "    w = w / w.sum(axis=-1, keepdims=True)\n"
              "    return w @ V, w\n")
    results = grade("B4", source)
    assert results["b4.interface"].points == 0
    assert sum(r.points for r in results.values()) == 9, {
        k: r.feedback for k, r in results.items()}
