"""The general battery format without the sandbox: drawing inputs (ties always hold, seeds
reproduce, the secret changes the draws), call plans over the student's signature, reading
returned values as named outputs, battery lookup beside the rubric, and what `rubric validate`
reports."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.code.battery import BatteryError
from graders.code.calling import parameters_of, plan_call, read
from graders.code.draw import draw_case, expand
from graders.code.functions import build_function_battery, load_function_battery
from graders.code.spec import FunctionBatterySpec
from graders.rubric import RubricError, battery_problems, load_rubric, parse_rubric
from graders.sandbox import CallResult, Value

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"
MHA = EXAMPLES / "multi-head-attention" / "mha.yaml"


def _spec(**dims: object) -> FunctionBatterySpec:
    return FunctionBatterySpec.model_validate({
        "function": "f", "module": "m.py", "reference": {"function": "f"},
        "parameters": {"x": {"array": ["n", "d_model"]}, "h": {"size": "heads"}},
        "dims": {"heads": {"choices": [1, 2, 3, 4, 6]}, "n": {"range": [1, 9]},
                 "d_model": {"range": [1, 48], "multiple_of": "heads"},
                 "d_head": {"quotient": ["d_model", "heads"]},
                 "odd": {"range": [1, 99], "parity": "odd"},
                 "total": {"sum": ["n", 1]}, **dims},
        "cases": [{"name": "drawn", "repeat": 3}],
        "checks": {"values": {"description": "equals", "allclose": "output"}}})


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**63 - 1))
def test_tied_sizes_always_hold_and_a_seed_reproduces_its_draw(seed: int) -> None:
    spec = _spec()
    for index, (case, name, last) in enumerate(expand(spec)):
        drawn = draw_case(spec, case, name, index, seed, last_repeat=last)
        sizes = drawn.sizes
        assert sizes["d_model"] % sizes["heads"] == 0
        assert sizes["d_head"] * sizes["heads"] == sizes["d_model"]
        assert sizes["odd"] % 2 == 1 and sizes["total"] == sizes["n"] + 1
        assert drawn.inputs["x"].shape == (sizes["n"], sizes["d_model"])
        assert drawn.inputs["h"] == sizes["heads"] and isinstance(drawn.inputs["h"], int)
        again = draw_case(spec, case, name, index, seed, last_repeat=last)
        assert again.sizes == sizes and np.array_equal(again.inputs["x"], drawn.inputs["x"])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**62))
def test_another_secret_draws_other_inputs(seed: int) -> None:
    spec = _spec()
    case, name, _ = expand(spec)[0]
    first = draw_case(spec, case, name, 0, seed).inputs["x"]
    others = [draw_case(spec, case, name, 0, seed + k).inputs["x"] for k in range(1, 4)]
    assert any(o.shape != first.shape or not np.array_equal(o, first) for o in others)


def test_a_fixed_case_is_the_same_for_every_secret() -> None:
    spec = FunctionBatterySpec.model_validate({
        **_spec().model_dump(mode="json"),
        "cases": [{"name": "fixed", "seed": 5}, {"name": "fixed three", "seed": 6, "repeat": 3}]})
    expanded = expand(spec)
    drawn = [[draw_case(spec, case, name, i, s) for i, (case, name, _) in enumerate(expanded)]
             for s in (1, 2)]
    for a, b in zip(*drawn, strict=True):
        assert a.sizes == b.sizes and np.array_equal(a.inputs["x"], b.inputs["x"])
    repeated = [d.inputs["x"] for d in drawn[0][1:]]
    assert not any(x.shape == y.shape and np.array_equal(x, y)
                   for x, y in ((repeated[0], repeated[1]), (repeated[1], repeated[2])))


@pytest.mark.parametrize(("dims", "words"), [
    ({"bad": {"range": [1, 5], "multiple_of": "later"}}, "not declared before it"),
    ({"bad": {"range": [5, 1]}}, "range must be"),
    ({"bad": {"value": 3, "range": [1, 2]}}, "exactly one of"),
])
def test_ties_are_a_closed_vocabulary_checked_when_read(dims: dict[str, object],
                                                         words: str) -> None:
    with pytest.raises(ValueError, match=words):
        _spec(**dims)


ASKED = ("Q", "K", "V", "num_heads")


@settings(max_examples=80, deadline=None)
@given(order=st.permutations(ASKED),
       optional=st.lists(st.sampled_from(["mask", "verbose", "scale"]), unique=True),
       required=st.lists(st.sampled_from(["d_head", "temperature"]), unique=True))
def test_call_plans_follow_the_signature(order: list[str], optional: list[str],
                                         required: list[str]) -> None:
    params = [*order, *required, *(f"{n}=None" for n in optional)]
    source = f"def f({', '.join(params)}):\n    return Q\n"
    plan = plan_call(ASKED, {"d_head": "d_head"}, parameters_of(source, "f"))
    assert plan.keyword == (tuple(order) != ASKED)  # by name only when the order differs
    supplied = {name for name, _ in plan.extras}
    assert supplied == set(required) & {"d_head"}  # required and listed: supplied
    assert set(plan.unsupplied) == set(required) - {"d_head"}
    assert not supplied & set(optional)  # never an argument the function runs without


def _value(*arrays: np.ndarray) -> CallResult:
    items = tuple(Value("array", array=a, shape=a.shape, dtype=str(a.dtype)) for a in arrays)
    value = items[0] if len(items) == 1 else Value("seq", items=items, length=len(items),
                                                    type_name="tuple")
    return CallResult(index=0, ok=True, value=value)


def test_returned_values_are_read_as_named_outputs() -> None:
    spec = _spec()
    case, name, _ = expand(spec)[0]
    drawn = draw_case(spec, case, name, 0, 1)
    out, weights = np.zeros((2, 3)), np.ones((2, 4))
    expected = {"output": out, "weights": weights}
    both = frozenset({"swapped", "extra_leading_axis", "output_only"})
    swapped = read(drawn, _value(weights, out), expected, ("output", "weights"), both, False, "")
    assert swapped.adaptations == {"swapped"} and swapped.outputs["output"] is out
    alone = read(drawn, _value(out), expected, ("output", "weights"), both, False, "")
    assert alone.adaptations == {"output_only"} and set(alone.outputs) == {"output"}
    axis = read(drawn, _value(out[None]), {"output": out}, ("output",), both, False, "")
    assert axis.extra_axis == {"output"} and axis.outputs["output"].shape == (2, 3)
    kept = read(drawn, _value(out[None]), {"output": out}, ("output",), frozenset(), False, "")
    assert not kept.adaptations and kept.outputs["output"].shape == (1, 2, 3)


def _battery(tmp_path: Path, reference: str, variants: str = "{}") -> Path:
    (tmp_path / "m.py").write_text(
        "import numpy as np\n" + reference + f"\nVARIANTS = {variants}\n")
    (tmp_path / "b.yaml").write_text(
        "function: f\nmodule: m.py\nreference: {function: f}\nvariants: VARIANTS\n"
        "parameters: {x: {array: [n]}, k: {size: k}}\n"
        "dims: {n: {range: [2, 4]}, k: {choices: [0, 1]}}\n"
        "cases:\n  - {name: small, dims: {k: 1}}\n  - {name: zero k, dims: {k: 0}}\n"
        "checks: {values: {description: equals, allclose: output}}\n")
    return tmp_path / "b.yaml"


def test_a_failing_reference_names_the_call_and_the_exception(tmp_path: Path) -> None:
    path = _battery(tmp_path, "def f(x, k):\n    return x / (1 // k)\n")
    with pytest.raises(BatteryError) as info:
        load_function_battery(path)
    message = str(info.value)
    assert "case 'zero k'" in message and "f(x=<float64 array (" in message
    assert "k=0" in message and "ZeroDivisionError: integer division or modulo by zero" in message


def test_a_variant_the_cases_cannot_tell_from_the_reference_is_reported(tmp_path: Path) -> None:
    path = _battery(tmp_path, "def f(x, k):\n    return x * k\n\n"
                    "def g(x, k):\n    return x * k ** 2\n\n"
                    "def h(x, k):\n    return x + k\n",
                    '{"square": ("k squared", g), "plus": ("adds k", h)}')
    battery = build_function_battery(path, yaml.safe_load(path.read_text()))
    assert battery.indistinguishable() == ["square"]  # k is 0 or 1: k == k ** 2
    rubric = path.parent / "r.yaml"
    rubric.write_text("slug: r\ntitle: R\nquestions:\n  - id: Q\n    items:\n"
                      "      - {id: q.values, points: 1, grader: code,"
                      " config: {battery: b.yaml, check: values}}\n")
    problems = battery_problems(rubric.read_bytes(), load_rubric(rubric).rubric)
    assert len(problems) == 1 and "cannot tell variant 'square'" in problems[0]


def test_batteries_are_found_beside_the_rubric_and_never_outside_its_folder(
        tmp_path: Path) -> None:
    folder = tmp_path / "course"
    shutil.copytree(MHA.parent, folder)
    rubric = folder / "multi-head-attention.yaml"
    loaded = load_rubric(rubric)
    item = next(loaded.rubric.items())
    from graders.code.config import item_config

    assert item_config(item).path == (folder / "mha.yaml").resolve()
    # The stored text alone, parsed again in the same process, still finds it.
    again = parse_rubric(rubric.read_bytes(), "<stored rubric>")
    assert item_config(next(again.rubric.items())).path == (folder / "mha.yaml").resolve()
    escaping = rubric.read_text().replace("battery: mha.yaml", "battery: ../mha.yaml", 1)
    (folder / "escape.yaml").write_text(escaping)
    with pytest.raises(RubricError, match="must lie inside"):
        load_rubric(folder / "escape.yaml")
    unknown = rubric.read_text().replace("check: shape", "check: vibes")
    (folder / "unknown.yaml").write_text(unknown)
    with pytest.raises(RubricError, match="not one of the battery's checks"):
        load_rubric(folder / "unknown.yaml")


def test_an_attention_battery_in_the_general_form_reads_as_the_attention_engine(
        tmp_path: Path) -> None:
    from graders.code.battery import BatterySpec, load_battery

    bundled = Path(__file__).resolve().parents[3] / "rubrics" / "transformer-basics"
    battery = load_battery(bundled / "b3.yaml")
    assert battery.check("row_softmax") == "row_softmax"
    stable = [c for c in battery.spec.cases if c.stable]
    assert [(c.n, c.m, c.d_k, c.d_v, c.logit_scale) for c in stable] == [(3, 5, 4, 3, 1000.0)]
    assert battery.spec.adaptation("swapped_pair").allowed
    assert isinstance(battery.spec, BatterySpec)
    # A reference that fails names the call and the exception.
    shutil.copy(bundled / "attention.py", tmp_path / "attention.py")
    with open(tmp_path / "attention.py", "a") as module:
        module.write("\n\ndef broken(Q, K, V):\n    return attention(Q, K[: Q.shape[0]], V)\n")
    text = (bundled / "b3.yaml").read_text().replace(
        "reference: {function: attention", "reference: {function: broken")
    (tmp_path / "b3.yaml").write_text(text)
    with pytest.raises(BatteryError) as info:
        load_battery(tmp_path / "b3.yaml")
    message = str(info.value)
    assert "broken(Q=<(3, 4)>, K=<(5, 4)>, V=<(5, 4)>) raised ValueError" in message


@pytest.mark.parametrize(("signature", "left_out"), [
    ("x", ("axis",)), ("x, axis", ()), ("x, dim", ()), ("x, *, axis=-1", ()), ("*args", ())])
def test_an_optional_asked_parameter_is_left_out_only_where_it_has_no_place(
        signature: str, left_out: tuple[str, ...]) -> None:
    source = f"def softmax({signature}):\n    return 0\n"
    plan = plan_call(("x", "axis"), {}, parameters_of(source, "softmax"), frozenset({"axis"}))
    assert plan.left_out == left_out and not plan.unsupplied


def test_an_attention_variant_equal_to_the_reference_is_reported(tmp_path: Path) -> None:
    bundled = Path(__file__).resolve().parents[3] / "rubrics" / "transformer-basics"
    shutil.copy(bundled / "b3.yaml", tmp_path / "b3.yaml")
    module = (bundled / "attention.py").read_text() + (
        "\n\ndef _transposed_twice(Q, K, V):\n    return attention(Q, K.T.T, V)\n\n"
        'VARIANTS["k_transposed_twice"] = ("K.T.T is K", _transposed_twice)\n')
    (tmp_path / "attention.py").write_text(module)
    rubric = tmp_path / "r.yaml"
    rubric.write_text("slug: r\ntitle: R\nquestions:\n  - id: Q\n    items:\n"
                      "      - {id: q.weights, points: 1, grader: code,"
                      " config: {battery: b3.yaml, check: weights}}\n")
    problems = battery_problems(rubric.read_bytes(), load_rubric(rubric).rubric)
    assert len(problems) == 1 and "cannot tell variant 'k_transposed_twice'" in problems[0]


@settings(max_examples=60, deadline=None)
@given(order=st.permutations([0, 1, 2]), extra_axis=st.booleans(), extra_item=st.booleans())
def test_outputs_are_read_by_their_shapes_in_any_order(order: list[int], extra_axis: bool,
                                                       extra_item: bool) -> None:
    spec = _spec()
    case, name, _ = expand(spec)[0]
    drawn = draw_case(spec, case, name, 0, 1)
    names = ("output", "weights", "scale")
    expected = {"output": np.zeros((2, 3)), "weights": np.ones((2, 4)), "scale": np.ones(5)}
    returned = [expected[names[i]][None] if extra_axis else expected[names[i]] for i in order]
    if extra_item:
        returned.append(np.ones((7, 7)))
    allowed = frozenset({"swapped", "extra_leading_axis", "extra_outputs"})
    found = read(drawn, _value(*returned), expected, names, allowed, False, "")
    assert {k: v.shape for k, v in found.outputs.items()} == {k: v.shape
                                                            for k, v in expected.items()}
    assert ("swapped" in found.adaptations) == (order != [0, 1, 2])
    assert ("extra_leading_axis" in found.adaptations) == extra_axis
    assert ("extra_outputs" in found.adaptations) == extra_item


@settings(max_examples=80, deadline=None)
@given(n_positional=st.integers(1, 3), n_keyword=st.integers(1, 3), defaults=st.booleans(),
       star_args=st.sampled_from(["*", "*args"]))
def test_asked_parameters_declared_keyword_only_are_passed_by_name_without_adaptation(
        n_positional: int, n_keyword: int, defaults: bool, star_args: str) -> None:
    """`def softmax(x, *, temperature=1.0)`, asked as such: the keyword-only parameters go by
    their names (a positional call would raise TypeError) and the call is the asked interface,
    not `by_name` (which a battery need not list, and the interface check never passes)."""
    positional = [f"p{i}" for i in range(n_positional)]
    keyword = [f"k{i}" for i in range(n_keyword)]
    declared = [f"{k}=1.0" if defaults else k for k in keyword]
    source = f"def f({', '.join([*positional, star_args, *declared])}):\n    return 0\n"
    asked = (*positional, *keyword)
    plan = plan_call(asked, {}, parameters_of(source, "f"))
    if star_args == "*args":  # variadic: called as asked, positionally
        assert plan.named == ()
        return
    assert plan.named == tuple(keyword)
    assert not plan.keyword and not plan.adaptations and not plan.unsupplied


def _centred(x: np.ndarray, axis: int) -> np.ndarray:
    return x - x.mean(axis=axis, keepdims=True)


# The class: a reduction over the wrong axis (a mean over the batch instead of the features, a
# softmax over the queries) is invisible on an axis of length one, and an instructor's range
# `[1, 5]` for a batch rightly includes one. Each repeated case's last draw has every axis
# longer than one where its range or choices allow, so the wrong axis shows whatever the secret.
@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**63 - 1), top=st.integers(2, 6), repeat=st.integers(2, 4),
       choices=st.lists(st.integers(1, 5), min_size=1, max_size=4, unique=True))
def test_a_repeated_case_tries_every_axis_longer_than_one(
        seed: int, top: int, repeat: int, choices: list[int]) -> None:
    spec = FunctionBatterySpec.model_validate({
        "function": "f", "module": "m.py", "reference": {"function": "f"},
        "parameters": {"x": {"array": ["batch", "d"]}},
        "dims": {"batch": {"range": [1, top]}, "d": {"choices": choices}},
        "cases": [{"name": "rows", "repeat": repeat}, {"name": "one", "dims": {"batch": 1}}],
        "checks": {"values": {"description": "equals", "allclose": "output"}}})
    drawn = [draw_case(spec, case, name, index, seed, last_repeat=last)
             for index, (case, name, last) in enumerate(expand(spec))]
    assert [d.name for d in drawn] == [f"rows #{k + 1}" for k in range(repeat)] + ["one"]
    last = drawn[repeat - 1]
    assert last.sizes["batch"] > 1
    assert last.sizes["d"] > 1 or choices == [1]
    if last.sizes["d"] > 1:  # layer norm centres over the features, not the batch
        x = last.inputs["x"]
        assert not np.allclose(_centred(x, 0), _centred(x, 1))
    assert drawn[-1].sizes["batch"] == 1  # a fixed size stays as written
