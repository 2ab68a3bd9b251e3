"""A parameter the handout writes as a tuple of integers (a pair of token ids `(a, b)`, axes, a
shape), fixed in the battery as `value: [1, 2]`, and the ways students use one: compare it with
a tuple they build (`(ids[i], ids[i + 1]) == pair`), unpack it, index it, test membership,
turn it into a list or an array. Before (trial homework 11), such a value reached the function
as a NumPy array, so `(x, y) == pair` compared element-wise and `if` raised "the truth value of
an array ... is ambiguous": a right BPE merge was a submission error on every item. A fixed
list of integers now arrives as a tuple, to the reference and to the student alike; a list with
a float in it is still an array."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.context import GradingResources
from graders.results import Status
from tests.graders.code.test_function_batteries import grade_file, points

MODULE = '''
import numpy as np


def merge(ids, pair, new_id):
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return np.array(out)


def scaled(x, w):
    return x * np.asarray(w)[0]
'''

BATTERY = """function: merge
module: ref.py
reference: {function: merge, outputs: [merged]}
parameters:
  ids: {array: [n], dtype: int64, distribution: integers, low: 1, high: 2}
  pair: {value: [1, 2]}
  new_id: {value: 9}
dims:
  n: {range: [8, 20]}
cases:
  - {name: drawn, repeat: 4}
  - {name: run, values: {ids: [3, 3, 3, 4], pair: [3, 3]}}
checks:
  values: {description: "the merged ids", allclose: merged, rtol: 0, atol: 0}
"""

FLOATS = """function: scaled
module: ref.py
reference: {function: scaled, outputs: [y]}
parameters:
  x: {array: [n]}
  w: {value: [0.5, 2.0]}
dims:
  n: {range: [3, 6]}
cases:
  - {name: drawn, repeat: 2}
checks:
  values: {description: "x times w[0]", allclose: y}
"""

RUBRIC = """slug: tuples
title: Tuples
questions:
  - id: Q1
    answer_kind: code
    items:
      - {id: q1.values, points: 2, grader: code, config: {battery: b.yaml, check: values}}
"""

# how students test ids[i], ids[i + 1] against the pair
TESTS = {
    "tuple": "(ids[i], ids[i + 1]) == pair",
    "tuple_rev": "pair == (ids[i], ids[i + 1])",
    "slice": "tuple(ids[i:i + 2]) == tuple(pair)",
    "unpacked": "ids[i] == a and ids[i + 1] == b",
    "indexed": "ids[i] == pair[0] and ids[i + 1] == pair[1]",
    "list": "list(ids[i:i + 2]) == list(pair)",
    "array": "np.array_equal(ids[i:i + 2], pair)",
}
MERGE = """import numpy as np


def merge(ids, pair, new_id):
    a, b = pair
    ids = {ids}
    out, i = [], 0
    while i < len(ids):
        if i + 1 < len(ids) and {test}:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return out
"""


@pytest.fixture(scope="module")
def rubrics(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    root = tmp_path_factory.mktemp("tuples")
    made = {}
    for name, battery in (("merge", BATTERY), ("floats", FLOATS)):
        folder = root / name
        folder.mkdir()
        (folder / "ref.py").write_text(MODULE)
        (folder / "b.yaml").write_text(battery)
        (folder / "r.yaml").write_text(RUBRIC)
        made[name] = folder / "r.yaml"
    return made.__getitem__


@settings(max_examples=14, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(test=st.sampled_from(sorted(TESTS)), as_list=st.booleans())
def test_a_pair_of_ids_is_a_tuple(resources: GradingResources,
                                  rubrics: Callable[[str], Path], test: str,
                                  as_list: bool) -> None:
    source = MERGE.format(ids="list(ids)" if as_list else "ids", test=TESTS[test])
    results = grade_file(resources, rubrics("merge"), source)
    assert points(results) == {"q1.values": 2}, (TESTS[test], results["q1.values"].feedback)
    assert results["q1.values"].status is Status.GRADED


def test_a_list_with_a_float_is_still_an_array(resources: GradingResources,
                                               rubrics: Callable[[str], Path]) -> None:
    source = "import numpy as np\n\n\ndef scaled(x, w):\n    return x * w[0] + 0 * w.size\n"
    results = grade_file(resources, rubrics("floats"), source)
    assert points(results) == {"q1.values": 2}, results["q1.values"].feedback
