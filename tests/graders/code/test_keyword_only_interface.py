"""An asked interface with a keyword-only, defaulted parameter: `softmax(x, *, temperature=1.0)`.

The classes: a student who declares it keyword-only, as asked, was called positionally
through the `by_name` adaptation (0 on every check at confidence 0.8, the battery not listing
`by_name`); a student whose function has no such parameter (`T=1.0`, or none) is called
without it, and its interface check passed even on inputs that give another temperature,
which the asked call could not pass.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.context import GradingResources
from graders.results import ItemResult
from tests.graders.code.test_function_batteries import grade_file

MODULE = '''
import numpy as np

def softmax(x, *, temperature=1.0):
    z = x / temperature
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)
'''
BATTERY = '''
function: softmax
module: ref.py
reference: {function: softmax, outputs: [p]}
parameters:
  x: {array: [rows, k]}
  temperature: {value: 1.0, optional: true}
dims:
  rows: {range: [1, 3]}
  k: {range: [2, 6]}
cases:
  - {name: default, repeat: 2, omit: [temperature]}
  - {name: "at its default", values: {temperature: 1.0}}
  - {name: "temperature 2", group: temp, values: {temperature: 2.0}}
checks:
  interface: {description: "softmax(x, *, temperature=1.0) as asked", interface: true,
              groups: [main, temp]}
  values: {description: "each row is softmax(x)", allclose: p}
  temperature: {description: "the temperature divides the logits", groups: [temp], allclose: p}
'''
RUBRIC = '''
slug: t
title: T
questions:
  - id: Q
    items:
      - {id: q.interface, points: 1, grader: code, config: {battery: b.yaml, check: interface}}
      - {id: q.values, points: 1, grader: code, config: {battery: b.yaml, check: values}}
      - {id: q.temperature, points: 1, grader: code, config: {battery: b.yaml, check: temperature}}
'''
BODY = ("    z = x / {t}\n    e = np.exp(z - z.max(axis=-1, keepdims=True))\n"
        "    return e / e.sum(axis=-1, keepdims=True)\n")


@pytest.fixture(scope="module")
def rubric(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    folder = tmp_path_factory.mktemp("kwonly")
    (folder / "ref.py").write_text(MODULE)
    (folder / "b.yaml").write_text(BATTERY)
    (folder / "r.yaml").write_text(RUBRIC)
    yield folder / "r.yaml"


def _points(results: dict[str, ItemResult]) -> dict[str, Decimal]:
    return {k: Decimal(str(r.points)) for k, r in results.items()}


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(["kw_only", "positional", "renamed", "absent"]), st.booleans())
def test_keyword_only_and_missing_parameters(
        resources: GradingResources, rubric: Path, form: str, extra: bool) -> None:
    name = "T" if form == "renamed" else "temperature"
    signature = {"kw_only": "x, *, temperature=1.0", "positional": "x, temperature=1.0",
                 "renamed": "x, *, T=1.0", "absent": "x"}[form]
    if extra and form != "absent":  # a parameter of the student's own, with a default
        signature += ", axis=-1"  # (after `x` alone it would take the temperature's place)
    uses = name if form != "absent" else "1.0"
    source = f"import numpy as np\n\ndef softmax({signature}):\n" + BODY.format(t=uses)
    results = grade_file(resources, rubric, source)
    got = _points(results)
    if form in ("kw_only", "positional"):
        # called as asked, by name where the function says so: full credit, no adaptation
        assert got == {"q.interface": 1, "q.values": 1, "q.temperature": 1}, \
            {k: r.feedback for k, r in results.items()}
        assert all(r.confidence == 1.0 for r in results.values())
    else:
        # no place for the temperature: right at its default, never as asked at another value
        assert got == {"q.interface": 0, "q.values": 1, "q.temperature": 0}, \
            {k: r.feedback for k, r in results.items()}
        assert "no parameter `temperature`" in results["q.interface"].feedback
