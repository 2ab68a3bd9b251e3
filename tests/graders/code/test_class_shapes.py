"""The shapes a class takes in students' NumPy homework, each graded through the sandbox as the
asked `LayerNorm(d, eps=1e-5).forward(x)`: helper methods, a base class of the student's (with
the method, or with a `__call__` that delegates to `forward`), a dataclass with
`__post_init__`, a property read by the method, a keyword-only constructor argument; with and
without a known bug. And the parameters read from the source for any `__init__`."""

from __future__ import annotations

from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.code.calling import Parameters
from graders.code.classes import classes_in, method_parameters, resolve
from graders.context import GradingResources
from tests.graders.code.test_class_batteries import LN_RUBRIC, grade

STATS = {
    False: ("mu = x.mean(axis=-1, keepdims=True)", "var = x.var(axis=-1, keepdims=True)"),
    True: ("mu = x.mean()", "var = x.var()"),  # the whole array's: the `whole_array` bug
}


@st.composite
def layer_norms(draw: st.DrawFn) -> tuple[str, bool]:
    bug = draw(st.booleans())
    helper, prop, delegate = draw(st.booleans()), draw(st.booleans()), draw(st.booleans())
    shape = draw(st.sampled_from(["plain", "dataclass", "base_forward", "base_call",
                                  "base_init"]))
    keyword_only = draw(st.booleans()) and shape != "dataclass"
    mean, var = STATS[bug]
    scale = "self.scale" if prop else "self.gamma"
    if helper:
        stats = (f"    def _stats(self, x):\n        {mean}\n        {var}\n"
                 "        return mu, var\n\n")
        body = "        mu, var = self._stats(x)\n"
    else:
        stats, body = "", f"        {mean}\n        {var}\n"
    # another name for the input, an optional argument the question never passes
    argument = draw(st.sampled_from(["x", "X", "inputs", "x, training=False"]))
    forward = (f"{stats}    def forward(self, {argument}):\n"
               + ("" if argument.startswith("x") else f"        x = {argument}\n") + body +
               f"        return {scale} * (x - mu) / np.sqrt(var + self.eps) + self.beta\n")
    extras = ""
    if prop:
        extras += "    @property\n    def scale(self):\n        return self.gamma\n\n"
    if delegate:
        extras += "    def __call__(self, x):\n        return self.forward(x)\n\n"
    star = "*, " if keyword_only else ""
    init = (f"    def __init__(self, d, {star}eps=1e-5):\n        self.gamma = np.ones(d)\n"
            "        self.beta = np.zeros(d)\n        self.eps = eps\n\n")
    source = "import numpy as np\nfrom dataclasses import dataclass\n\n"
    if shape == "dataclass":
        source += ("@dataclass\nclass LayerNorm:\n    d: int\n    eps: float = 1e-5\n\n"
                   "    def __post_init__(self):\n        self.gamma = np.ones(self.d)\n"
                   "        self.beta = np.zeros(self.d)\n\n" + extras + forward)
    elif shape == "base_forward":  # the method inherited from the student's own base
        source += (f"class Norm:\n{extras}{forward}\n"
                   f"class LayerNorm(Norm):\n{init}")
    elif shape == "base_call":  # the base's __call__ delegates to the subclass's forward
        source += ("class Module:\n    def __call__(self, *args):\n"
                   "        return self.forward(*args)\n\n"
                   f"class LayerNorm(Module):\n{init}{extras}{forward}")
    elif shape == "base_init":  # the constructor inherited, the method the subclass's own
        source += (f"class Norm:\n{init}\nclass LayerNorm(Norm):\n{extras}{forward}")
    else:
        source += f"class LayerNorm:\n{init}{extras}{forward}"
    return source, bug


@settings(max_examples=25, deadline=None)
@given(layer_norms())
def test_every_shape_of_the_asked_class_is_graded_as_asked(resources: GradingResources,
                                                           drawn: tuple[str, bool]) -> None:
    source, bug = drawn
    results = grade(resources, LN_RUBRIC, source)
    wanted = Decimal(0) if bug else Decimal(1)
    got = {k: Decimal(str(r.points)) for k, r in results.items()}
    assert got == {"ln.interface": 1, "ln.values": wanted, "ln.eps": wanted}, (
        source, {k: r.feedback for k, r in results.items()})
    if bug:
        assert "Likely bug: The mean and variance are taken over the whole array" in (
            results["ln.values"].student_feedback or ""), source


NAMES = st.sampled_from(["d", "d_model", "eps", "rng", "num_heads", "scale", "dropout"])


@settings(max_examples=60, deadline=None)
@given(st.lists(NAMES, unique=True, max_size=4), st.lists(NAMES, unique=True, max_size=3),
       st.integers(0, 4), st.sampled_from(["forward", "__call__", "apply"]))
def test_the_constructors_and_methods_parameters_are_read_without_self(
        positional: list[str], keyword_only: list[str], defaults: int, method: str) -> None:
    keyword_only = [n for n in keyword_only if n not in positional]
    defaults = min(defaults, len(positional))
    required = positional[:len(positional) - defaults]
    optional = [f"{n}=1" for n in positional[len(positional) - defaults:]]
    star = ["*", *(f"{n}=None" for n in keyword_only)] if keyword_only else []
    signature = ", ".join(["self", *required, *optional, *star])
    source = (f"class Base:\n    def {method}(self, x, y=0):\n        return x\n\n"
              f"class Model(Base):\n    def __init__({signature}):\n        pass\n")
    shape = (classes_in(source) or {})["Model"]
    assert method_parameters(shape, "__init__") == Parameters(
        tuple(positional), len(required), tuple((n, True) for n in keyword_only), False)
    assert method_parameters(shape, method) == Parameters(("x", "y"), 1, (), False)
    assert resolve(source, f"Model.{method}", [], None).method == method



@pytest.mark.parametrize(("source", "cls", "method", "renamed", "problem"), [
    # the base may be a framework's with `forward`: called as asked, the sandbox decides
    ("import nn\nclass M(nn.Module):\n    def __init__(self):\n        pass\n",
     "M", "forward", False, False),
    # its own `__call__` is what it spells `forward` with, whatever its base
    ("import nn\nclass M(nn.Module):\n    def __call__(self, x):\n        return x\n",
     "M", "__call__", True, False),
    ("class M:\n    def apply(self, x):\n        return x\n", "M", "apply", True, False),
    ("class M:\n    def apply(self, x):\n        return x\n    def run(self, x):\n"
     "        return x\n", "M", "forward", False, True),
    ("class Other:\n    def forward(self, x):\n        return x\n", "Other", "forward", True,
     False),
    ("class A:\n    def forward(self, x):\n        return x\nclass B(A):\n    pass\n", "B",
     "forward", True, True),  # two classes have it: neither is guessed
])
def test_the_class_and_method_called(source: str, cls: str, method: str, renamed: bool,
                                     problem: bool) -> None:
    asked = "M.forward" if cls != "B" else "Model.forward"
    target = resolve(source, asked, [], None)
    assert bool(target.problem) == problem, target
    if not problem:
        assert (target.cls, target.method, target.renamed) == (cls, method, renamed), target


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(NAMES, st.booleans()), unique_by=lambda f: f[0], max_size=3),
       st.lists(st.tuples(NAMES, st.booleans()), unique_by=lambda f: f[0], max_size=3))
def test_a_dataclass_is_constructed_with_its_bases_fields_then_its_own(
        base: list[tuple[str, bool]], own: list[tuple[str, bool]]) -> None:
    def body(fields: list[tuple[str, bool]]) -> str:
        lines = [f"    {n}: int" + (" = 1" if d else "") for n, d in fields]
        return "\n".join(lines or ["    pass"])

    source = (f"from dataclasses import dataclass\n\n@dataclass\nclass Base:\n{body(base)}\n\n"
              f"@dataclass(frozen=True)\nclass Model(Base):\n{body(own)}\n"
              "    def forward(self, x):\n        return x\n")
    merged = dict(base) | dict(own)
    shape = (classes_in(source) or {})["Model"]
    assert method_parameters(shape, "__init__") == Parameters(
        tuple(merged), sum(not d for d in merged.values()), (), False)
