"""A method bound by assignment in the class body (`forward = __call__`, `step = forward`): the
same function under another name, so the asked name is found as is (no renaming, the
interface earned); an assignment of anything else is no method."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.code.classes import classes_in, method_parameters, resolve

NAMES = st.sampled_from(["__call__", "apply", "run", "compute", "_impl"])


def _source(defined: str, aliases: list[str], asked: str) -> str:
    lines = ["import numpy as np", "", "class Layer:", "    def __init__(self, d):",
             "        self.d = d", "", f"    def {defined}(self, x, scale=1.0):",
             "        return x * scale", ""]
    previous = defined
    for alias in aliases:  # a chain: each alias names the one before it
        lines.append(f"    {alias} = {previous}")
        previous = alias
    lines.append(f"    {asked}_weights = np.ones(3)")  # an attribute, not a method
    return "\n".join(lines) + "\n"


@settings(max_examples=100, deadline=None)
@given(NAMES, st.lists(NAMES, min_size=0, max_size=2), st.booleans())
def test_an_alias_in_the_class_body_is_the_asked_method(
        defined: str, between: list[str], shuffled: bool) -> None:
    aliases = [*between, "forward"] if not shuffled else ["forward", *between]
    source = _source(defined, aliases, "forward")
    target = resolve(source, "Layer.forward", [], None)
    assert target.problem == "" and target.method == "forward", target
    assert not target.renamed, target  # the asked name exists: the interface is earned
    shape = classes_in(source)["Layer"]  # type: ignore[index]
    parameters = method_parameters(shape, "forward")
    assert parameters is not None and parameters.positional == ("x", "scale"), parameters


def test_an_assignment_of_something_else_is_no_method() -> None:
    source = ("class Layer:\n    scale = 2\n    forward = scale\n"
              "    def apply(self, x):\n        return x\n")
    target = resolve(source, "Layer.forward", [], None)
    assert target.method == "apply" and target.renamed, target
