"""A class whose constructor draws its weights from the battery's rng in another order or
layout than asked (W2 before W1, `(out, in)` then transposed): the class of submissions whose
computation is right and whose weights differ. The rearrangement is found from the reference
alone (graders.code.redraw); the rubric's `draw_order` adaptation says what it earns, and without
it, or when nothing explains a difference, a person decides."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.code.calling import Observed
from graders.code.functions import load_function_battery
from graders.code.redraw import rearranged
from graders.context import GradingResources
from graders.results import Status
from tests.graders.code.test_class_batteries import grade, points, student

# A chain of layers: the reference draws W1 (d0, d1), W2 (d1, d2), ... in order, then computes
# tanh(x W1) W2 ... ; every weight shapes the output, so another arrangement gives others.
CHAIN = '''
import numpy as np


def _chain(x, weights):
    for w in weights[:-1]:
        x = np.tanh(x @ w)
    return x @ weights[-1]


class Chain:
    def __init__(self, {sizes}, rng):
        dims = [{sizes}]
        self.weights = [rng.standard_normal((a, b)) / np.sqrt(a) for a, b in zip(dims, dims[1:])]

    def forward(self, x):
        return _chain(x, self.weights)


class Student(Chain):
    """The same arrays drawn in ORDER, those of FLIPPED in the transposed shape."""

    def __init__(self, {sizes}, rng):
        dims = [{sizes}]
        shapes = list(zip(dims, dims[1:]))
        drawn = {{}}
        for i in ORDER:
            a, b = shapes[i]
            drawn[i] = rng.standard_normal((b, a)).T if i in FLIPPED else \\
                rng.standard_normal((a, b))
            drawn[i] = drawn[i] * SCALE / np.sqrt(a)
        self.weights = [drawn[i] for i in range(len(shapes))]
'''

BATTERY = '''
function: Chain.forward
module: chain.py
reference: {{function: Chain.forward, outputs: [y]}}
init:
{init}
  rng: {{generator: true}}
parameters:
  x: {{array: [n, d0]}}
dims:
  n: {{range: [1, 3]}}
{dims}
cases:
  - {{name: drawn, repeat: 2}}
  - {{name: again, same_instance: true}}
checks:
  values: {{description: "the chain's output", allclose: y}}
'''


def _battery(folder: Path, layers: int, order: tuple[int, ...], flipped: set[int],
             scale: float) -> Path:
    names = [f"d{i}" for i in range(layers + 1)]
    module = CHAIN.format(sizes=", ".join(names))
    module += f"\nORDER = {list(order)}\nFLIPPED = {sorted(flipped)}\nSCALE = {scale}\n"
    (folder / "chain.py").write_text(module)
    battery = folder / "chain.yaml"
    battery.write_text(BATTERY.format(
        init="\n".join(f"  {n}: {{size: {n}}}" for n in names),
        dims="\n".join(f"  {n}: {{range: [2, 6]}}" for n in names)))
    return battery


def _observed(path: Path, seed: int) -> tuple[object, list[Observed]]:
    battery = load_function_battery(path)
    instance = battery.instance(seed)
    student_class = battery.reference.__init__.__globals__["Student"]  # the module's
    outputs = battery.run(student_class, instance.cases)
    observed = [Observed(case, None, dict(out) if isinstance(out, dict) else {})
                for case, out in zip(instance.cases, outputs, strict=True)]
    return instance, observed


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 3).flatmap(lambda k: st.tuples(
    st.just(k), st.permutations(range(k)), st.sets(st.integers(0, k - 1)))),
    st.integers(0, 2**31))
def test_weights_drawn_in_any_order_or_layout_are_recognised(
        tmp_path_factory: pytest.TempPathFactory, drawn: tuple[int, list[int], set[int]],
        seed: int) -> None:
    layers, order, flipped = drawn
    folder = tmp_path_factory.mktemp("chain")
    path = _battery(folder, layers, tuple(order), flipped, 1.0)
    instance, observed = _observed(path, seed)
    indices = list(range(len(observed)))
    found = rearranged(instance, observed, indices, "y", 1e-6, 1e-8)  # type: ignore[arg-type]
    if tuple(order) == tuple(range(layers)) and not flipped:
        return  # the asked draws: the reference's own results, nothing to rearrange
    assert found is not None, (order, flipped)
    assert found.describe()


@pytest.mark.parametrize(("order", "flipped"), [((3, 0, 1, 2), set()), ((1, 0, 3, 2), set()),
                                               ((0, 1, 2, 3), {0, 1, 2, 3})])
def test_four_weights_in_another_order_or_all_transposed_are_recognised(
        tmp_path: Path, order: tuple[int, ...], flipped: set[int]) -> None:
    """An output projection drawn first (W_o, then W_q, W_k, W_v), pairs swapped, every matrix
    stored (out, in): within the arrangements tried for four draws."""
    path = _battery(tmp_path, 4, order, flipped, 1.0)
    instance, observed = _observed(path, 7)
    indices = list(range(len(observed)))
    assert rearranged(instance, observed, indices, "y", 1e-6, 1e-8) is not None  # type: ignore[arg-type]


@settings(max_examples=15, deadline=None)
@given(st.integers(1, 3).flatmap(lambda k: st.tuples(st.just(k), st.permutations(range(k)))),
       st.sampled_from([0.5, 2.0, 0.02]), st.integers(0, 2**31))
def test_weights_scaled_otherwise_are_not_a_rearrangement(
        tmp_path_factory: pytest.TempPathFactory, drawn: tuple[int, list[int]], scale: float,
        seed: int) -> None:
    layers, order = drawn
    path = _battery(tmp_path_factory.mktemp("chain"), layers, tuple(order), set(), scale)
    instance, observed = _observed(path, seed)
    indices = list(range(len(observed)))
    assert rearranged(instance, observed, indices, "y", 1e-6, 1e-8) is None  # type: ignore[arg-type]


FFN_MODULE = '''
import numpy as np


class FeedForward:
    def __init__(self, d, d_ff, rng):
        self.W1 = rng.standard_normal((d, d_ff)) / np.sqrt(d)
        self.W2 = rng.standard_normal((d_ff, d)) / np.sqrt(d_ff)

    def forward(self, x):
        return np.maximum(0, x @ self.W1) @ self.W2


class _Linear(FeedForward):
    def forward(self, x):
        return x @ self.W1 @ self.W2


BUGS = {"linear": ("There is no ReLU between the layers.", _Linear)}
'''

FFN_BATTERY = '''
function: FeedForward.forward
module: ffn.py
reference: {function: FeedForward.forward, outputs: [y]}
init:
  d: {size: d}
  d_ff: {size: d_ff}
  rng: {generator: true}
parameters:
  x: {array: [n, d]}
dims:
  n: {range: [2, 4]}
  d: {range: [2, 5]}
  d_ff: {range: [6, 9]}
cases:
  - {name: drawn, repeat: 3}
checks:
  values: {description: "relu(x W1) W2", allclose: y}
variants: BUGS
'''

FFN_RUBRIC = """slug: ffn
title: ffn
questions:
  - id: Q1
    title: ffn
    labels: ["Q1"]
    answer_kind: code
    items:
      - {id: ffn.values, points: 3, grader: code, config: {battery: ffn.yaml, check: values}}
"""

STUDENT = '''import numpy as np

class FeedForward:
    def __init__(self, d, d_ff, rng):
        FIRST
        SECOND

    def forward(self, x):
        return BODY
'''
W1 = "self.W1 = rng.standard_normal((d, d_ff)) / np.sqrt(d)"
W2 = "self.W2 = rng.standard_normal((d_ff, d)) / np.sqrt(d_ff)"
RELU = "np.maximum(0, x @ self.W1) @ self.W2"


def _ffn(folder: Path, adaptations: str = "") -> Path:
    (folder / "ffn.py").write_text(FFN_MODULE)
    (folder / "ffn.yaml").write_text(FFN_BATTERY + adaptations)
    rubric = folder / "ffn-rubric.yaml"
    rubric.write_text(FFN_RUBRIC)
    return rubric


def _student(first: str, second: str, body: str = RELU) -> str:
    return STUDENT.replace("FIRST", first).replace("SECOND", second).replace("BODY", body)


def test_weights_drawn_in_another_order_go_to_a_person_saying_why(
        resources: GradingResources, tmp_path: Path) -> None:
    result = grade(resources, _ffn(tmp_path), _student(W2, W1))["ffn.values"]
    assert result.status is Status.NEEDS_REVIEW, result
    assert "another order or layout" in (result.student_feedback or ""), result
    assert "#2, #1" in result.feedback and "draw_order" in result.feedback, result


def test_the_rubric_can_give_a_share_for_weights_drawn_in_another_layout(
        resources: GradingResources, tmp_path: Path) -> None:
    rubric = _ffn(tmp_path, "adaptations:\n  draw_order: {credit: 2/3}\n")
    flipped = W1.replace("((d, d_ff))", "((d_ff, d)).T")
    results = grade(resources, rubric, _student(flipped, W2))
    result = results["ffn.values"]
    assert result.status is Status.GRADED and result.confidence == 0.8, result
    assert points(results) == {"ffn.values": Decimal(2)}, result
    assert "2/3 of its points" in student(results), result


@pytest.mark.parametrize(("first", "second", "body"), [
    (W1.replace("/ np.sqrt(d)", "* 0.02"), W2, RELU),  # another scale: cannot tell
    (W1, W2 + "; self.b = rng.standard_normal(d)", RELU + " + self.b"),  # a draw more
])
def test_a_difference_nothing_explains_goes_to_a_person(
        resources: GradingResources, tmp_path: Path, first: str, second: str,
        body: str) -> None:
    result = grade(resources, _ffn(tmp_path), _student(first, second, body))["ffn.values"]
    assert result.status is Status.NEEDS_REVIEW, result
    assert "neither a known bug nor the asked draws rearranged" in result.feedback, result


def test_a_known_bug_is_still_graded_alone(resources: GradingResources,
                                           tmp_path: Path) -> None:
    results = grade(resources, _ffn(tmp_path), _student(W1, W2, "x @ self.W1 @ self.W2"))
    result = results["ffn.values"]
    assert result.status is Status.GRADED and points(results)["ffn.values"] == 0, result
    assert "no ReLU" in student(results), result


def test_a_wrong_shape_is_graded_alone(resources: GradingResources, tmp_path: Path) -> None:
    results = grade(resources, _ffn(tmp_path), _student(W1, W2, "np.maximum(0, x @ self.W1)"))
    assert results["ffn.values"].status is Status.GRADED, results
    assert points(results)["ffn.values"] == 0
