"""A function asked to return a dict keyed by numbers or by tuples of numbers (a count of
adjacent pairs, `{(a, b): n}`; a histogram of ids, `{id: n}`), the way students write one: a
dict filled with `get`, a `Counter` (returned as it is or as a dict), a `defaultdict`, a
comprehension, keys of NumPy integers (zip over an array) or of Python ints. Such a result is
compared with the reference's dict entry by entry, whatever the order of insertion. It used to
travel as its values alone, so every such answer failed, an empty dict included."""

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
def count_pairs(ids):
    counts = {}
    for i in range(len(ids) - 1):
        key = (int(ids[i]), int(ids[i + 1]))
        counts[key] = counts.get(key, 0) + 1
    return counts


def histogram(ids):
    counts = {}
    for t in ids:
        counts[int(t)] = counts.get(int(t), 0) + 1
    return counts
'''

BATTERY = """function: {name}
module: ref.py
reference: {{function: {name}, outputs: [counts]}}
parameters:
  ids: {{array: [n], dtype: int64, distribution: integers, low: 0, high: 3}}
dims:
  n: {{range: [5, 30]}}
cases:
  - {{name: drawn, repeat: 4}}
  - {{name: "one token", group: short, values: {{ids: [7]}}}}
  - {{name: "a run", group: short, values: {{ids: [3, 3, 3, 3]}}}}
checks:
  values: {{description: "the counts", allclose: counts, rtol: 0, atol: 0}}
  short: {{description: "short inputs", groups: [short], allclose: counts, rtol: 0, atol: 0}}
"""

RUBRIC = """slug: counts
title: Counts
questions:
  - id: Q1
    answer_kind: code
    items:
      - {{id: q1.values, points: 2, grader: code, config: {{battery: b.yaml, check: values}}}}
      - {{id: q1.short, points: 1, grader: code, config: {{battery: b.yaml, check: short}}}}
"""

# how students spell the loop's pairs (or single ids, for the histogram)
PAIRS = {
    "zip": "zip(ids[:-1], ids[1:])",
    "zip_full": "zip(ids, ids[1:])",
    "range": "((ids[i], ids[i + 1]) for i in range(len(ids) - 1))",
    "ints": "((int(a), int(b)) for a, b in zip(ids, ids[1:]))",
    "list": "zip(list(ids), list(ids)[1:])",
}
SINGLES = {"plain": "ids", "ints": "(int(t) for t in ids)", "list": "list(ids)"}
# how students fill the dict from an iterable `items`
FILLS = {
    "get": "counts = {{}}\n    for p in {items}:\n        counts[p] = counts.get(p, 0) + 1\n"
           "    return counts\n",
    "if": "counts = {{}}\n    for p in {items}:\n        if p in counts:\n"
          "            counts[p] += 1\n        else:\n            counts[p] = 1\n"
          "    return counts\n",
    "counter": "return Counter({items})\n",
    "counter_dict": "return dict(Counter({items}))\n",
    "defaultdict": "counts = defaultdict(int)\n    for p in {items}:\n        counts[p] += 1\n"
                   "    return counts\n",
    "comprehension": "seq = list({items})\n    return {{p: seq.count(p) for p in seq}}\n",
}
HEADER = "from collections import Counter, defaultdict\nimport numpy as np\n\n\n"


def program(name: str, items: str, fill: str) -> str:
    body = FILLS[fill].format(items=items)
    return f"{HEADER}def {name}(ids):\n    {body}"


def rubric_for(root: Path, name: str) -> Path:
    folder = root / name
    folder.mkdir(exist_ok=True)
    (folder / "ref.py").write_text(MODULE)
    (folder / "b.yaml").write_text(BATTERY.format(name=name))
    (folder / "r.yaml").write_text(RUBRIC.format())
    return folder / "r.yaml"


@pytest.fixture(scope="module")
def rubrics(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    root = tmp_path_factory.mktemp("mapping")
    made = {name: rubric_for(root, name) for name in ("count_pairs", "histogram")}
    return made.__getitem__


@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(pairs=st.booleans(), spelling=st.sampled_from(sorted(PAIRS)),
       single=st.sampled_from(sorted(SINGLES)), fill=st.sampled_from(sorted(FILLS)))
def test_a_dict_of_counts_is_compared_entry_by_entry(
        resources: GradingResources, rubrics: Callable[[str], Path], pairs: bool,
        spelling: str, single: str, fill: str) -> None:
    name = "count_pairs" if pairs else "histogram"
    source = program(name, PAIRS[spelling] if pairs else SINGLES[single], fill)
    results = grade_file(resources, rubrics(name), source)
    assert points(results) == {"q1.values": 2, "q1.short": 1}, (
        source, {k: r.feedback for k, r in results.items()})
    assert all(r.status is Status.GRADED for r in results.values())


@settings(max_examples=15, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(fill=st.sampled_from(sorted(FILLS)), bug=st.sampled_from(["even", "first", "swapped"]))
def test_a_wrong_count_still_fails(resources: GradingResources,
                                   rubrics: Callable[[str], Path], fill: str, bug: str) -> None:
    items = {"even": "zip(ids[:-1:2], ids[1::2])",  # pairs at even positions only
             "first": "zip(ids[1:-1], ids[2:])",  # the first pair left out
             "swapped": "zip(ids[1:], ids[:-1])"}[bug]  # (b, a) for (a, b)
    results = grade_file(resources, rubrics("count_pairs"), program("count_pairs", items, fill))
    assert points(results)["q1.values"] == 0, results["q1.values"].feedback
    assert results["q1.values"].status is Status.GRADED
