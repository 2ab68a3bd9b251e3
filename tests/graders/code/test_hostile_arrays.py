"""Checks hold for every shape and dtype (issue 12.5): whatever arrays a student's function
returns (zero-size, wrong rank, bool, integer, float16, NaN, inf, huge), every check and the
diagnosis decide pass or fail; none raises, so none becomes a grader_error."""

from __future__ import annotations

from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from graders.code.battery import Instance, load_battery
from graders.code.checks import Verdict, evaluate
from graders.code.config import CodeCheckConfig, resolve_battery
from graders.code.diagnosis import diagnose
from graders.code.forms import AS_ASKED, observe
from graders.results import Status
from graders.sandbox import CallResult, Value
from tests.graders.code.conftest import Grade

INSTANCES: dict[str, Instance] = {
    name: load_battery(resolve_battery(f"transformer-basics/{name}.yaml")).instance(99)
    for name in ("b3", "b4")}
CHECKS = ("interface", "scaling", "row_softmax", "weights", "output", "stable", "causal")

arrays = hnp.arrays(
    dtype=st.sampled_from([np.float64, np.float32, np.float16, np.int64, np.uint8, np.bool_]),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, min_side=0, max_side=7),
    elements={"allow_nan": True, "allow_infinity": True},
    fill=st.nothing())


def _value(draw_arrays: list[Any], kind: str) -> Value:
    if kind == "none":
        return Value("none")
    items = tuple(Value("array", array=a, dtype=str(a.dtype), shape=a.shape)
                  for a in draw_arrays)
    if kind == "array":
        return items[0]
    return Value("seq", items=items, length=len(items), type_name="tuple")


@settings(max_examples=80, deadline=None)
@given(data=st.data(), question=st.sampled_from(["b3", "b4"]),
       kind=st.sampled_from(["array", "seq", "none"]))
def test_no_returned_array_makes_a_check_raise(data: st.DataObject, question: str,
                                               kind: str) -> None:
    instance = INSTANCES[question]
    observations = []
    for case in instance.cases:
        main = _value(data.draw(st.lists(arrays, min_size=1, max_size=3)), kind)
        probe = _value(data.draw(st.lists(arrays, min_size=1, max_size=2)), kind)
        salvage = data.draw(st.dictionaries(st.sampled_from(["weights", "attn", "p"]), arrays,
                                            max_size=2))
        crashed = data.draw(st.booleans())
        call = (CallResult(0, ok=False, salvage=salvage) if crashed
                else CallResult(0, ok=True, value=main))
        observations.append(observe(case, AS_ASKED, call, CallResult(1, ok=True, value=probe),
                                    "was not run"))
    for check in CHECKS:
        config = CodeCheckConfig(battery=f"transformer-basics/{question}.yaml", check=check,
                                 salvage=True)
        for verdict in evaluate(config, observations):
            assert verdict.verdict in (Verdict.PASS, Verdict.FAIL, Verdict.CRASH)
    diagnose(instance, observations, "", ("weights", "attn", "p"))


def test_an_extended_float_result_is_graded_not_refused(grade: Grade) -> None:
    source = """
import numpy as np

def attention(Q, K, V):
    Q, K, V = (np.asarray(a, dtype=np.longdouble) for a in (Q, K, V))
    scores = Q @ K.T / np.sqrt(np.longdouble(Q.shape[-1]))
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights
"""
    results = grade("B3", source)
    assert sum(r.points for r in results.values()) == 10, {
        k: r.feedback for k, r in results.items()}


def test_zero_size_complex_and_object_results_are_failures_not_grader_errors(
        grade: Grade) -> None:
    for returned in ("np.zeros((0, 0)), np.zeros((0,))", "Q.astype(complex), K",
                     "np.array([object()]), 1", "np.full((Q.shape[0], V.shape[1]), np.nan), "
                     "np.full((Q.shape[0], K.shape[0]), np.inf)"):
        source = f"import numpy as np\ndef attention(Q, K, V):\n    return {returned}\n"
        results = grade("B3", source)
        for result in results.values():
            assert result.status in (Status.GRADED, Status.SUBMISSION_ERROR), result.feedback
            assert result.points <= result.max_points
        assert sum(r.points for r in results.values()) <= 1


finite_or_not = hnp.arrays(np.float64, hnp.array_shapes(min_dims=2, max_dims=2, min_side=0,
                                                        max_side=6),
                           elements=st.floats(allow_nan=True, allow_infinity=True, width=64))


@settings(max_examples=300, deadline=None)
@given(weights=finite_or_not, data=st.data(), column_factors=st.booleans())
def test_the_softmax_relation_decides_any_matrix(weights: np.ndarray, data: st.DataObject,
                                                 column_factors: bool) -> None:
    from graders.code.arrays import relation

    scores = data.draw(hnp.arrays(np.float64, weights.shape,
                                  elements=st.floats(-1e6, 1e6, width=64)))
    allowed = data.draw(hnp.arrays(np.bool_, weights.shape))
    found = relation(weights, scores, allowed, column_factors)
    assert found.holds in (True, False, None)
    if found.holds:
        assert found.scale > 0


def test_unsupported_and_oversized_returns_read_as_no_result() -> None:
    from graders.code.forms import read

    case = INSTANCES["b3"].cases[0]
    for value in (Value("unsupported", type_name="dict"), Value("too_large", shape=(10**9,)),
                  Value("seq", items=(Value("unsupported", type_name="str"),), length=1,
                        type_name="tuple")):
        reading = read(CallResult(0, ok=True, value=value), case, case.inputs[2], "")
        assert reading.output is None and reading.weights is None


@settings(max_examples=60, deadline=None)
@given(question=st.sampled_from(["b3", "b4"]), swapped=st.booleans(),
       container=st.sampled_from(["tuple", "list", "dict"]), case_index=st.integers(0, 3))
def test_the_pair_order_is_read_from_the_values(question: str, swapped: bool, container: str,
                                                case_index: int) -> None:
    from graders.code.forms import read

    case = INSTANCES[question].cases[case_index]
    output, weights = case.expected
    first, second = (weights, output) if swapped else (output, weights)
    items = tuple(Value("array", array=a, dtype=str(a.dtype), shape=a.shape)
                  for a in (first, second))
    reading = read(CallResult(0, ok=True, value=Value("seq", items=items, length=2,
                                                       type_name=container)),
                   case, case.inputs[2], "")
    assert reading.shape == ("swapped" if swapped else "pair")
    assert reading.output is not None and np.allclose(reading.output, output)
