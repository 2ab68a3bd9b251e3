"""A function whose output's length the input's values decide, not its sizes: one BPE merge
(`bpe_merge(ids, pair, new_id)`, shorter by one per merge), a filter (`positives(x) ->
x[x > 0]`), a count of pairs as a dict. A wrong result of such a function has another length,
and the `interface` check (the function can be called as asked and returns what is asked) used
to fail it for that: trial homework 11's no-skip, first-occurrence-only and dropped-last-token
merges lost the interface point as well as the values. The interface check now asks such an
output for its number of axes only; an output whose shape the sizes fix (the default) still
needs the reference's shape, and a result with another number of axes still fails."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.context import GradingResources
from tests.graders.code.test_function_batteries import grade_file, points

MODULE = '''
import numpy as np


def positives(x):
    return x[x > 0]


def doubled(x):
    return 2 * x
'''

BATTERY = """function: {name}
module: ref.py
reference: {{function: {name}, outputs: [y]}}
parameters:
  x: {{array: [n]}}
dims:
  n: {{range: [6, 20]}}
cases:
  - {{name: drawn, repeat: 4}}
checks:
  interface: {{description: "returns a 1-D array", interface: true}}
  values: {{description: "the values", allclose: y}}
"""

RUBRIC = """slug: shaped
title: Shaped
questions:
  - id: Q1
    answer_kind: code
    items:
      - {id: q1.interface, points: 1, grader: code, config: {battery: b.yaml, check: interface}}
      - {id: q1.values, points: 1, grader: code, config: {battery: b.yaml, check: values}}
"""

# wrong filters: the values (and so the length) differ from the reference's
WRONG_FILTERS = ["x[x < 0]", "x[x > 0][:-1]", "x[x > 0] + 1", "[float(v) for v in x if v < 0]",
                 "np.array([v for v in x if v <= 0])", "np.concatenate([x[x > 0], [0.0]])"]
WRONG_MAPS = ["3 * x", "x + 1", "x[:-1] * 2", "np.append(2 * x, 0.0)"]
# another number of axes: never the asked interface
OTHER_RANK = ["x[x > 0].reshape(1, -1)", "np.stack([x, x])"]


def rubric_for(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir(exist_ok=True)
    (folder / "ref.py").write_text(MODULE)
    (folder / "b.yaml").write_text(BATTERY.format(name=name))
    (folder / "r.yaml").write_text(RUBRIC)
    return folder / "r.yaml"


@pytest.fixture(scope="module")
def rubrics(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    root = tmp_path_factory.mktemp("shaped")
    made = {name: rubric_for(root, name) for name in ("positives", "doubled")}
    return made.__getitem__


def program(name: str, body: str) -> str:
    return f"import numpy as np\n\n\ndef {name}(x):\n    return {body}\n"


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.sampled_from(WRONG_FILTERS))
def test_a_wrong_filter_keeps_the_interface(resources: GradingResources,
                                            rubrics: Callable[[str], Path], body: str) -> None:
    results = grade_file(resources, rubrics("positives"), program("positives", body))
    assert points(results) == {"q1.interface": 1, "q1.values": 0}, (
        body, {k: r.feedback for k, r in results.items()})


@settings(max_examples=12, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(body=st.sampled_from(WRONG_MAPS + OTHER_RANK), filtered=st.booleans())
def test_a_shape_the_sizes_fix_or_another_rank_still_fails(
        resources: GradingResources, rubrics: Callable[[str], Path], body: str,
        filtered: bool) -> None:
    if filtered and body not in OTHER_RANK:
        return  # a wrong length is the interface's only for an output the sizes fix
    name = "positives" if filtered else "doubled"
    results = grade_file(resources, rubrics(name), program(name, body))
    right_shape = body in ("3 * x", "x + 1")
    assert points(results)["q1.interface"] == (1 if right_shape else 0), (
        body, results["q1.interface"].feedback)
