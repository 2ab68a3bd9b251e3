"""The code grader end to end: real sandbox, bundled rubric, B3/B4 batteries."""

from __future__ import annotations

from decimal import Decimal

import pytest

from graders.context import GradingResources
from graders.results import Status
from tests.graders.code.conftest import Grade, grade_with

B3_CORRECT = """
import numpy as np

def attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(K.shape[-1])
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights
"""

B4_CORRECT = """
import numpy as np

def masked_attention(Q, K, V):
    n = Q.shape[0]
    scores = Q @ K.T / np.sqrt(Q.shape[-1])
    scores = np.where(np.triu(np.ones((n, n)), k=1) == 1, -np.inf, scores)
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights
"""


def points(results) -> dict[str, Decimal]:
    return {item_id: r.points for item_id, r in results.items()}


def test_a_correct_attention_gets_full_marks(grade: Grade) -> None:
    results = grade("B3", "```python\n" + B3_CORRECT + "```")
    assert all(r.status is Status.GRADED for r in results.values())
    assert all(r.points == r.max_points for r in results.values()), points(results)


def test_a_correct_masked_attention_gets_full_marks(grade: Grade) -> None:
    results = grade("B4", B4_CORRECT)
    assert all(r.points == r.max_points for r in results.values()), points(results)


@pytest.mark.parametrize(("bug", "change", "expected"), [
    ("whole_matrix", ("weights.sum(axis=-1, keepdims=True)", "weights.sum()"),
     {"b3.interface": 1, "b3.scaling": 2, "b3.row_softmax": 0, "b3.weights": 0}),
    ("columns", ("weights.sum(axis=-1, keepdims=True)", "weights.sum(axis=0, keepdims=True)"),
     {"b3.interface": 1, "b3.scaling": 0, "b3.row_softmax": 0, "b3.weights": 0}),
    ("no scale", (" / np.sqrt(K.shape[-1])", ""),
     {"b3.interface": 1, "b3.scaling": 0, "b3.row_softmax": 2, "b3.weights": 0}),
    ("scale by d_k", ("np.sqrt(K.shape[-1])", "K.shape[-1]"),
     {"b3.interface": 1, "b3.scaling": 0, "b3.row_softmax": 2, "b3.output": 0}),
    ("K not transposed", ("Q @ K.T", "Q @ K"), {"b3.interface": 0, "b3.weights": 0}),
])
def test_known_b3_bugs_are_named(grade: Grade, bug: str, change: tuple[str, str],
                                 expected: dict[str, int]) -> None:
    source = B3_CORRECT.replace(*change)
    assert source != B3_CORRECT
    results = grade("B3", source)
    for item_id, value in expected.items():
        assert results[item_id].points == value, (bug, item_id, results[item_id].feedback)
    names = {
        "whole_matrix": "whole score matrix", "columns": "each column",
        "no scale": "not divided by sqrt(d_k)", "scale by d_k": "by d_k instead of sqrt(d_k)",
        "K not transposed": "K is not transposed",
    }
    assert names[bug] in results["b3.weights"].feedback


def test_print_instead_of_return_is_named(grade: Grade) -> None:
    source = B3_CORRECT.replace("return weights @ V, weights", "print(weights @ V, weights)")
    results = grade("B3", source)
    assert results["b3.interface"].points == 0
    assert "prints its results instead of returning" in results["b3.interface"].feedback
    assert any(e.kind == "stdout" for e in results["b3.interface"].evidence)


@pytest.mark.parametrize(("bug", "change", "name", "causal"), [
    ("after softmax",
     ("    scores = np.where(np.triu(np.ones((n, n)), k=1) == 1, -np.inf, scores)\n", ""),
     "after the softmax", 3),
    ("diagonal", ("k=1", "k=0"), "also hides the diagonal", 0),
    ("no mask", ("-np.inf, scores", "scores, scores"), "No causal mask", 0),
    ("keepdims", ("weights.sum(axis=-1, keepdims=True)", "weights.sum(axis=1)"),
     "without keepdims", 3),
])
def test_known_b4_bugs_are_named(grade: Grade, bug: str, change: tuple[str, str], name: str,
                                 causal: int) -> None:
    source = B4_CORRECT.replace(*change)
    if bug == "after softmax":
        source = source.replace("return weights @ V",
                                "weights = np.where(np.triu(np.ones((n, n)), k=1) == 1, 0.0, "
                                "weights)\n    return weights @ V")
    assert source != B4_CORRECT
    results = grade("B4", source)
    assert results["b4.causal"].points == causal, results["b4.causal"].feedback
    assert results["b4.weights"].points == 0
    assert name in results["b4.weights"].feedback, results["b4.weights"].feedback


def test_a_timeout_in_one_check_keeps_the_others(grade: Grade) -> None:
    source = B3_CORRECT.replace(
        "    scores = scores - scores.max",
        "    while np.abs(scores).max() > 100:\n        pass\n    scores = scores - scores.max")
    results = grade("B3", source)
    stable = results["b3.stable"]
    assert stable.status is Status.SUBMISSION_ERROR and stable.points == 0
    assert "time limit" in stable.feedback
    for item_id in ("b3.interface", "b3.scaling", "b3.row_softmax", "b3.weights", "b3.output"):
        assert results[item_id].points == results[item_id].max_points, item_id


def test_a_crash_is_the_students_error_with_its_line(grade: Grade) -> None:
    source = B3_CORRECT.replace("return weights @ V, weights", "return outptu, weights")
    results = grade("B3", source)
    for result in results.values():
        assert result.status is Status.SUBMISSION_ERROR
        assert "NameError: name 'outptu' is not defined at line 9: `return outptu, weights`" \
            in result.feedback, result.feedback


def test_causal_credit_survives_a_crash_at_the_return(grade: Grade) -> None:
    source = B4_CORRECT.replace("return weights @ V, weights", "return out, weights")
    results = grade("B4", source)
    assert results["b4.causal"].points == 3
    assert results["b4.causal"].status is Status.GRADED
    assert "decided on the `weights`" in results["b4.causal"].feedback
    for item_id in ("b4.interface", "b4.weights", "b4.output"):
        assert results[item_id].status is Status.SUBMISSION_ERROR


def test_a_crash_before_the_weights_exist_gets_no_causal_credit(grade: Grade) -> None:
    source = B4_CORRECT.replace("    n = Q.shape[0]\n", "    n = Q.shape[0]\n    undefined()\n")
    results = grade("B4", source)
    assert results["b4.causal"].status is Status.SUBMISSION_ERROR
    assert results["b4.causal"].points == 0


def test_monkeypatching_numpy_comparisons_changes_nothing(grade: Grade) -> None:
    source = """
import numpy as np
np.allclose = lambda *a, **k: True
np.isclose = lambda *a, **k: True
np.array_equal = lambda *a, **k: True
np.testing.assert_allclose = lambda *a, **k: None
np.isfinite = lambda x: np.ones_like(x, dtype=bool)

def attention(Q, K, V):
    return np.zeros((Q.shape[0], V.shape[1])), np.zeros((Q.shape[0], K.shape[0]))
"""
    results = grade("B3", source)
    assert results["b3.interface"].points == 1
    assert sum(r.points for r in results.values()) == 1


def test_syntax_errors_and_missing_functions_are_submission_errors(grade: Grade) -> None:
    results = grade("B3", "```python\ndef attention(Q, K, V)\n    return Q\n```")
    assert all(r.status is Status.SUBMISSION_ERROR for r in results.values())
    assert "SyntaxError" in results["b3.output"].feedback
    results = grade("B3", "```python\nimport numpy as np\ndef f(x):\n    return x\n```")
    assert all(r.status is Status.SUBMISSION_ERROR for r in results.values())
    assert "defines no function `attention`" in results["b3.output"].feedback


def test_a_differently_named_function_is_graded_and_said_so(grade: Grade) -> None:
    results = grade("B3", B3_CORRECT.replace("def attention", "def sdpa"))
    # The computation earns its points; the interface, which asks for `attention` by name,
    # does not.
    assert all(r.points == r.max_points for k, r in results.items() if k != "b3.interface")
    assert results["b3.interface"].points == 0
    assert "no function is named `attention`" in results["b3.interface"].feedback
    assert "graded your `sdpa`" in results["b3.weights"].feedback


def test_no_code_goes_to_review(grade: Grade) -> None:
    results = grade("B3", "I did not have time for this question, sorry.")
    assert all(r.status is Status.NEEDS_REVIEW and r.points == 0 for r in results.values())


def test_missing_layers_refuse_unless_the_operator_allows_insecure_mode() -> None:
    refused = GradingResources(options={"sandbox_disabled_layers": ["seccomp"]})
    try:
        results = grade_with(refused, "B3", B3_CORRECT)
    finally:
        refused.close()
    for result in results.values():
        assert result.status is Status.NEEDS_REVIEW and result.points == 0
        assert "seccomp" in result.feedback and "not run" in result.feedback
    allowed = GradingResources(options={"sandbox_disabled_layers": ["seccomp"],
                                        "allow_insecure_sandbox": True})
    try:
        results = grade_with(allowed, "B3", B3_CORRECT)
    finally:
        allowed.close()
    for result in results.values():
        assert result.points == result.max_points
        assert result.feedback.startswith("Check") or "INSECURE" in result.feedback
        assert "INSECURE sandbox (the operator allowed it; missing layers: seccomp)" \
            in result.feedback


def test_grade_alone_matches_grade_items(resources: GradingResources) -> None:
    from graders.code import GRADER
    from graders.context import GradingContext
    from graders.documents.model import LocatedAnswer, ParsedSubmission
    from graders.rubric import BUNDLED_RUBRICS, load_rubric

    rubric = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric
    question = next(q for q in rubric.questions if q.id == "B3")
    context = GradingContext(rubric=rubric, question=question,
                             submission=ParsedSubmission(text="", format="text", answers={}),
                             resources=resources)
    item = question.items[2]
    result = GRADER.grade(item, LocatedAnswer("B3", B3_CORRECT), context)
    assert result.item_id == item.id and result.points == item.points
