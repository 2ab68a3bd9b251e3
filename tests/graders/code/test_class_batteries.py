"""Batteries that ask for a class's method (`function: LayerNorm.forward`), graded end to end
through the sandbox: right, wrong and crashing classes; weights drawn from the `rng` the battery
passes to `__init__`; state kept between calls on one instance; a class or method spelt
otherwise; a function where a class is asked."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from graders.cache.keys import sandbox_key
from graders.code import GRADER
from graders.code.functions import load_function_battery
from graders.code.general import job_for
from graders.code.spec import FunctionBatterySpec
from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult, Status
from graders.rubric import load_rubric
from graders.sandbox import Job
from tests.graders.code.class_batteries import write_batteries

EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "examples" / "layer-norm"
LN_RUBRIC = EXAMPLE / "numpy-layer-norm.yaml"

LAYER_NORM = """import numpy as np

class LayerNorm:
    def __init__(self, d, eps=1e-5):
        self.gamma = np.ones(d)
        self.beta = np.zeros(d)
        self.eps = eps

    def forward(self, x):
        mu = x.mean(axis=-1, keepdims=True)
        var = x.var(axis=-1, keepdims=True)
        return self.gamma * (x - mu) / np.sqrt(var + self.eps) + self.beta
"""


def grade(resources: GradingResources, rubric_path: Path, text: str) -> dict[str, ItemResult]:
    rubric = load_rubric(rubric_path).rubric
    question = rubric.questions[0]
    submission = ParsedSubmission(text=text, format="text", answers={})
    context = GradingContext(rubric=rubric, question=question, submission=submission,
                             resources=resources)
    results = GRADER.grade_items(question.items, LocatedAnswer(question.id, text), context)
    return {r.item_id: r for r in results}


def points(results: dict[str, ItemResult]) -> dict[str, Decimal]:
    return {k: Decimal(str(r.points)) for k, r in results.items()}


def student(results: dict[str, ItemResult]) -> str:
    return " ".join(r.student_feedback or "" for r in results.values())


def test_a_right_class_earns_everything(resources: GradingResources) -> None:
    results = grade(resources, LN_RUBRIC, LAYER_NORM)
    assert points(results) == {"ln.interface": 1, "ln.values": 1, "ln.eps": 1}, results
    assert all(r.status is Status.GRADED and r.confidence == 1.0 for r in results.values())


def test_a_wrong_class_fails_its_checks_and_its_bug_is_named(
        resources: GradingResources) -> None:
    wrong = LAYER_NORM.replace("np.sqrt(var + self.eps)", "(np.sqrt(var) + self.eps)")
    results = grade(resources, LN_RUBRIC, wrong)
    assert points(results)["ln.interface"] == 1 and points(results)["ln.eps"] == 0
    assert "eps is added to the standard deviation" in (results["ln.eps"].student_feedback or "")


def test_a_constructor_that_raises_is_said_without_the_hidden_inputs(
        resources: GradingResources) -> None:
    crashing = LAYER_NORM.replace("        self.eps = eps\n",
                                  "        self.eps = eps\n"
                                  "        raise ValueError(f'width {d} and {eps} refused')\n")
    results = grade(resources, LN_RUBRIC, crashing)
    assert all(r.status is Status.SUBMISSION_ERROR and r.points == 0 for r in results.values())
    said = student(results)
    assert "Your class's __init__ raised ValueError" in said and "no method was called" in said
    # The message prints the hidden d and eps: never shown to students, shown to the staff.
    assert "its message is not repeated" in said and not re.search(r"width \d", said)
    assert re.search(r"width \d+ and 1e-05 refused", results["ln.values"].feedback)


def test_a_method_that_raises_is_the_codes_error_not_the_constructors(
        resources: GradingResources) -> None:
    results = grade(resources, LN_RUBRIC, LAYER_NORM.replace("x.var(axis=-1", "x.varr(axis=-1"))
    said = student(results)
    assert "AttributeError" in said and "__init__" not in said


def test_weights_drawn_from_the_batterys_rng_match_the_reference_drawn_alike(
        resources: GradingResources, tmp_path: Path) -> None:
    linear, _ = write_batteries(tmp_path)
    right = ("import numpy as np\n\nclass Linear:\n"
             "    def __init__(self, d_in, d_out, rng):\n"
             "        self.W = rng.standard_normal((d_in, d_out)) / np.sqrt(d_in)\n"
             "        self.b = np.zeros(d_out)\n\n"
             "    def forward(self, x):\n        return x @ self.W + self.b\n")
    assert points(grade(resources, linear, right)) == {"linear.interface": 1, "linear.values": 1}
    # Drawn in another shape, then transposed: other weights, so other values.
    other = right.replace("rng.standard_normal((d_in, d_out))",
                          "rng.standard_normal((d_out, d_in)).T")
    assert points(grade(resources, linear, other)) == {"linear.interface": 1,
                                                       "linear.values": 0}


def test_state_kept_between_calls_on_one_instance(resources: GradingResources,
                                                  tmp_path: Path) -> None:
    _, mean = write_batteries(tmp_path)
    right = ("import numpy as np\n\nclass RunningMean:\n    def __init__(self, d):\n"
             "        self.rows = []\n\n    def update(self, x):\n"
             "        self.rows.extend(x)\n        return np.mean(self.rows, axis=0)\n")
    results = grade(resources, mean, right)
    assert points(results) == {"mean.first": 1, "mean.state": 1}, results
    assert all(r.status is Status.GRADED for r in results.values())  # its two runs agreed
    forgetful = right.replace("self.rows.extend(x)", "self.rows = list(x)")
    results = grade(resources, mean, forgetful)
    assert points(results) == {"mean.first": 1, "mean.state": 0}
    assert "keep the running total" in (results["mean.state"].student_feedback or "")


def test_a_constructor_without_the_optional_argument_is_built_without_it(
        resources: GradingResources) -> None:
    """`__init__(self, d)` with eps fixed inside: built as `LayerNorm(d)`, right where the asked
    call passes the default, and not the asked interface where it passes another eps."""
    fixed = LAYER_NORM.replace("def __init__(self, d, eps=1e-5)", "def __init__(self, d)") \
        .replace("self.eps = eps", "self.eps = 1e-5")
    results = grade(resources, LN_RUBRIC, fixed)
    assert points(results) == {"ln.interface": 0, "ln.values": 1, "ln.eps": 0}, results
    assert "has no parameter `eps`" in results["ln.interface"].feedback


def test_a_constructor_with_its_parameters_in_another_order_is_an_adaptation(
        resources: GradingResources) -> None:
    """`__init__(self, eps=1e-5, d=8)`: built by name, which the example's battery does not
    accept (no `by_name` in its adaptations): as for a function, no credit, and why."""
    swapped = LAYER_NORM.replace("def __init__(self, d, eps=1e-5)",
                                 "def __init__(self, eps=1e-5, d=8)")
    results = grade(resources, LN_RUBRIC, swapped)
    assert points(results) == {"ln.interface": 0, "ln.values": 0, "ln.eps": 0}, results
    assert "called with them by name" in results["ln.values"].feedback


def test_call_in_place_of_forward_earns_all_but_the_interface(
        resources: GradingResources) -> None:
    results = grade(resources, LN_RUBRIC, LAYER_NORM.replace("def forward", "def __call__"))
    assert points(results) == {"ln.interface": 0, "ln.values": 1, "ln.eps": 1}
    assert "graded its `__call__` in its place" in student(results)


def test_a_class_of_another_name_with_the_method_is_graded_in_its_place(
        resources: GradingResources) -> None:
    results = grade(resources, LN_RUBRIC, LAYER_NORM.replace("class LayerNorm", "class LN"))
    assert points(results) == {"ln.interface": 0, "ln.values": 1, "ln.eps": 1}
    assert "No class is named `LayerNorm`; graded your class `LN`" in student(results)


@pytest.mark.parametrize(("source", "said"), [
    ("import numpy as np\n\ndef layer_norm(x, eps=1e-5):\n    return x\n",
     "defines the function `layer_norm` instead, and no class `LayerNorm`"),
    ("import numpy as np\n\nclass Norm:\n    def __init__(self, d):\n        self.d = d\n",
     "defines no class `LayerNorm` (classes found: `Norm`)"),
    (LAYER_NORM.replace("def forward", "def _forward").replace(
        "    def __init__", "    def apply(self, x):\n        return x\n\n"
        "    def normalise(self, x):\n        return x\n\n    def __init__"),
     "Your class `LayerNorm` has no method `forward` (methods found: `apply`, `normalise`, "
     "`_forward`)"),
])
def test_nothing_runs_without_the_class_or_the_method(resources: GradingResources, source: str,
                                                      said: str) -> None:
    results = grade(resources, LN_RUBRIC, source)
    assert all(r.status is Status.SUBMISSION_ERROR and r.points == 0 for r in results.values())
    assert said in student(results), student(results)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 5), st.floats(1e-8, 1.0), st.sampled_from(["eps", "again", "class"]))
def test_the_results_cache_key_covers_the_constructor(case: int, eps: float, what: str) -> None:
    """Two jobs alike but for one case's constructor (an argument, a call on the instance
    before, another class) are two cache entries: a stored outcome is never served for the
    other."""
    instance = load_function_battery(EXAMPLE / "layer-norm.yaml").instance(7)
    case %= len(instance.cases)
    _, job = job_for(instance, LAYER_NORM, "LayerNorm.forward")
    call = job.calls[case]
    assert call.init is not None
    if what == "eps":
        index = len(job.arrays)
        changed = replace(job, arrays=(*job.arrays, np.asarray(eps)), calls=tuple(
            replace(c, init=replace(c.init, kwargs=(("eps", index),)) if c.init else None)
            if i == case else c for i, c in enumerate(job.calls)))
    elif what == "again":
        changed = replace(job, calls=tuple(
            replace(c, init=replace(call.init, again=not call.init.again)) if i == case else c
            for i, c in enumerate(job.calls)))
    else:
        changed = replace(job, calls=tuple(
            replace(c, init=replace(call.init, cls="LN")) if i == case else c
            for i, c in enumerate(job.calls)))

    def key(job: Job) -> str:
        return sandbox_key(job.source, job.arrays, job.calls, job.timeout_s, "policy")

    assert key(changed) != key(job)
    assert key(replace(job)) == key(job)


@pytest.mark.parametrize(("change", "said"), [
    (lambda raw: raw.update(function="layer_norm"), "has a reference method"),
    (lambda raw: raw["cases"][0].update(same_instance=True), "same_instance needs a case before"),
    (lambda raw: raw["init"].update(x={"value": 1}), "the constructor's (init) or the method's"),
    (lambda raw: raw["init"].update(rng={"generator": True, "value": 3}), "not several"),
    (lambda raw: raw["init"].update(w={"array": ["k"]}), "parameter 'w' uses undeclared sizes"),
])
def test_a_class_battery_written_wrong_is_refused_in_words(
        change: Callable[[dict[str, Any]], None], said: str) -> None:
    raw = yaml.safe_load((EXAMPLE / "layer-norm.yaml").read_text())
    change(raw)
    with pytest.raises(ValidationError) as caught:
        FunctionBatterySpec.model_validate(raw)
    assert said in str(caught.value)


def test_init_and_same_instance_belong_to_a_method() -> None:
    raw = yaml.safe_load((EXAMPLE / "layer-norm.yaml").read_text())
    raw.update(function="layer_norm", reference={"function": "layer_norm", "outputs": ["y"]})
    with pytest.raises(ValidationError) as caught:
        FunctionBatterySpec.model_validate(raw)
    assert "init and same_instance belong to a class's method" in str(caught.value)
