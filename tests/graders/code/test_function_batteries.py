"""General batteries (graders.code.spec) graded end to end through the sandbox: the example
batteries of docs/examples against implementations written here, each with a known mistake or
interface; the adaptations' rubric shares; crashes on one class of inputs; what students see."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from decimal import Decimal
from pathlib import Path

import pytest

from graders.code import GRADER
from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult, Status
from graders.rubric import load_rubric
from tests.graders.code.pos_encoding import CORRECT, PE

EXAMPLES = Path(__file__).resolve().parents[3] / "docs" / "examples"
PE_RUBRIC = EXAMPLES / "positional-encoding" / "numpy-positional-encoding.yaml"
MHA_RUBRIC = EXAMPLES / "multi-head-attention" / "multi-head-attention.yaml"

Grade = Callable[[Path, str], dict[str, ItemResult]]


def grade_file(resources: GradingResources, rubric_path: Path, text: str
               ) -> dict[str, ItemResult]:
    rubric = load_rubric(rubric_path).rubric
    question = rubric.questions[0]
    submission = ParsedSubmission(text=text, format="text", answers={})
    context = GradingContext(rubric=rubric, question=question, submission=submission,
                             resources=resources)
    results = GRADER.grade_items(question.items, LocatedAnswer(question.id, text), context)
    return {r.item_id: r for r in results}


@pytest.fixture
def run(resources: GradingResources) -> Iterator[Grade]:
    yield lambda rubric, text: grade_file(resources, rubric, text)


def points(results: dict[str, ItemResult]) -> dict[str, Decimal]:
    return {k: Decimal(str(r.points)) for k, r in results.items()}




def test_a_correct_pos_encoding_earns_everything(run: Grade) -> None:
    results = run(PE_RUBRIC, CORRECT)
    assert points(results) == {"pe.guard": 1, "pe.shape": 1, "pe.dtype": 1, "pe.values": 3,
                               "pe.odd_dmodel": 1}
    assert all(r.confidence == 1.0 and r.status is Status.GRADED for r in results.values())


def test_the_sentinel_dtype_and_extra_axis_each_fail_only_their_check(run: Grade) -> None:
    float64 = run(PE_RUBRIC, PE.format(result="angles"))
    assert points(float64)["pe.dtype"] == 0 and sum(points(float64).values()) == 6
    assert "float16" in (float64["pe.dtype"].student_feedback or "")
    batched = run(PE_RUBRIC, PE.format(result="angles[np.newaxis, :, :].astype(np.float16)"))
    assert points(batched) == {"pe.guard": 1, "pe.shape": 0, "pe.dtype": 1, "pe.values": 3,
                               "pe.odd_dmodel": 1}
    assert "extra leading axis" in (batched["pe.shape"].student_feedback or "")
    assert batched["pe.values"].confidence == 0.8  # read through an adaptation
    no_guard = run(PE_RUBRIC, CORRECT
                   .replace("    if position == 0 or d_model <= 0:\n        return -1\n", ""))
    assert points(no_guard)["pe.guard"] == 0 and sum(points(no_guard).values()) == 6
    assert "-1" in (no_guard["pe.guard"].student_feedback or "")


ODD_CRASH = """import numpy as np, math

def pos_encoding(position, d_model):
    if position == 0 or d_model <= 0:
        return -1
    pos = np.arange(position)[:, None]
    div = np.exp(np.arange(0, d_model, 2) * -(math.log(10000.0) / d_model))
    pe = np.zeros((position, d_model))
    pe[:, 0::2] = np.sin(pos * div)
    pe[:, 1::2] = np.cos(pos * div)
    return pe.astype(np.float16)
"""


def test_a_crash_on_one_class_of_inputs_fails_only_its_check(run: Grade) -> None:
    results = run(PE_RUBRIC, ODD_CRASH)
    assert points(results) == {"pe.guard": 1, "pe.shape": 1, "pe.dtype": 1, "pe.values": 3,
                               "pe.odd_dmodel": 0}
    odd = results["pe.odd_dmodel"]
    assert odd.status is Status.SUBMISSION_ERROR
    student = odd.student_feedback or ""
    assert "odd d_model" in student and "ValueError" in student and "line 10" in student
    assert "broadcast" not in student  # the message quotes shapes built from hidden inputs
    assert "broadcast" in odd.feedback and "odd (5, 7)" in odd.feedback  # staff see them
    assert "Likely bug" in odd.feedback and "ceil" in odd.feedback


def test_a_file_that_does_not_compile_scores_zero_naming_the_error(run: Grade) -> None:
    source = ("import numpy as np\n\ndef pos_encoding(position, d_model):\n"
              "    if position == 0:\n        return -1\n\treturn np.zeros((position, d_model))\n")
    results = run(PE_RUBRIC, source)
    assert all(r.points == 0 and r.status is Status.SUBMISSION_ERROR for r in results.values())
    assert all("TabError" in r.feedback and "line 6" in r.feedback for r in results.values())


MHA = """import numpy as np

def softmax(x):
    e = np.exp(x - x.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)

def multi_head_attention({params}):
    n, d_model = Q.shape
    d = d_model // num_heads
    def split(x):
        return x.reshape(x.shape[0], num_heads, d).transpose(1, 0, 2)
    q, k, v = split(Q @ W_q), split(K @ W_k), split(V @ W_v)
    w = softmax(q @ k.transpose(0, 2, 1) / {scale})
    heads = w @ v
    out = {concat} @ W_o
    return {result}
"""
MHA_PARAMS = "Q, K, V, W_q, W_k, W_v, W_o, num_heads"
RIGHT = {"params": MHA_PARAMS, "scale": "np.sqrt(d)",
         "concat": "heads.transpose(1, 0, 2).reshape(n, d_model)", "result": "out"}


def mha(**changes: str) -> str:
    return MHA.format(**{**RIGHT, **changes})


def test_a_correct_multi_head_attention_earns_everything(run: Grade) -> None:
    results = run(MHA_RUBRIC, mha())
    assert points(results) == {"mha.interface": 1, "mha.shape": 1, "mha.values": 4,
                               "mha.stable": 1}, {k: r.feedback for k, r in results.items()}


@pytest.mark.parametrize(("changes", "bug"), [
    ({"scale": "1.0"}, "not divided by sqrt(d_head)"),
    ({"scale": "np.sqrt(d_model)"}, "sqrt(d_model)"),
    ({"concat": "heads.reshape(n, d_model)"}, "wrong order"),
])
def test_multi_head_attention_bugs_lose_the_values_and_are_named(
        run: Grade, changes: dict[str, str], bug: str) -> None:
    results = run(MHA_RUBRIC, mha(**changes))
    values = results["mha.values"]
    # The one-head case cannot tell a per-head mistake from the reference: per input credit.
    assert values.points < 4 and results["mha.interface"].points == 1
    assert bug in (values.student_feedback or ""), values.feedback


def test_heads_never_split_are_named(run: Grade) -> None:
    source = mha().replace("d = d_model // num_heads", "num_heads = 1\n"
                           "    d = d_model // num_heads")
    results = run(MHA_RUBRIC, source)
    assert results["mha.values"].points < 4
    assert "never split" in (results["mha.values"].student_feedback or "")


def test_adapted_interfaces_earn_their_rubric_share(run: Grade) -> None:
    reordered = run(MHA_RUBRIC, mha(params="Q, K, V, num_heads, W_q, W_k, W_v, W_o"))
    assert points(reordered) == {"mha.interface": 0, "mha.shape": 1, "mha.values": 4,
                                 "mha.stable": 1}
    values = reordered["mha.values"]
    assert values.confidence == 0.8 and "by name" in values.feedback
    both = run(MHA_RUBRIC, mha(result="out, w"))
    assert points(both) == {"mha.interface": 0, "mha.shape": 1, "mha.values": 4,
                            "mha.stable": 1}
    batched = mha().replace("n, d_model = Q.shape", "Q, K, V = Q[0], K[0], V[0]\n"
                            "    n, d_model = Q.shape").replace("return out", "return out[None]")
    results = run(MHA_RUBRIC, batched)
    assert points(results) == {"mha.interface": 0, "mha.shape": 1, "mha.values": 4,
                               "mha.stable": 1}, {k: r.feedback for k, r in results.items()}
    assert "batch of one" in results["mha.values"].feedback


def test_an_optional_argument_is_never_supplied_and_a_listed_extra_is(run: Grade) -> None:
    optional = mha(params=MHA_PARAMS + ", mask=None").replace(
        "n, d_model = Q.shape", "assert mask is None\n    n, d_model = Q.shape")
    assert sum(points(run(MHA_RUBRIC, optional)).values()) == 7
    extra = mha(params=MHA_PARAMS + ", d_head").replace("d = d_model // num_heads", "d = d_head")
    results = run(MHA_RUBRIC, extra)
    assert points(results) == {"mha.interface": 0, "mha.shape": 1, "mha.values": 4,
                               "mha.stable": 1}
    assert "requires an argument" in results["mha.values"].feedback
    unknown = mha(params=MHA_PARAMS + ", temperature")
    results = run(MHA_RUBRIC, unknown)
    assert sum(points(results).values()) == 0
    assert "`temperature`" in (results["mha.values"].student_feedback or "")


def test_the_instructors_own_check_decides_its_item(run: Grade) -> None:
    unstable = mha().replace("e = np.exp(x - x.max(axis=-1, keepdims=True))", "e = np.exp(x)")
    results = run(MHA_RUBRIC, unstable)
    assert results["mha.stable"].points == 0
    assert "subtract each row's maximum" in results["mha.stable"].feedback


def test_the_real_pos_encoding_submissions_grade_as_the_careful_grader(run: Grade) -> None:
    """The 13 real deep-ml submissions with independent grades (../shared): items within the
    grader's ranges, the bug named in the feedback, the files that do not compile at 0."""
    import json
    import re

    import yaml

    from tests.shared_data import shared_path

    folder = shared_path("real", "new-homework", "code")
    within = total = 0
    for path in sorted(folder.glob("*.json")):
        source = json.loads(path.read_text())["answers"]["PE"]
        grades = yaml.safe_load(path.with_suffix(".grades.yaml").read_text())
        results = run(PE_RUBRIC, source)
        for item_id, expected in grades["items"].items():
            low, high = expected["range"]
            total += 1
            within += low <= results[item_id].points <= high
        feedback = " ".join(r.feedback for r in results.values())
        for words in grades.get("must_name", {}).get("PE", []):
            assert re.search(words, feedback, re.IGNORECASE), (path.name, words)
        if "tabs" in path.name:
            assert sum(points(results).values()) == 0 and "TabError" in feedback
    assert total == 65 and within / total >= 0.9, (within, total)


def test_a_check_over_several_groups_names_the_group_that_crashed(
        run: Grade, tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "pe"
    shutil.copytree(PE_RUBRIC.parent, folder)
    battery = folder / "pe.yaml"
    battery.write_text(battery.read_text().replace(
        "  values:\n    description: the values equal sin/cos of p / 10000^(2i/d_model), sine "
        "on even columns\n",
        "  values:\n    description: the values equal sin/cos of p / 10000^(2i/d_model), sine "
        "on even columns\n    groups: [main, odd]\n"))
    results = run(folder / PE_RUBRIC.name, ODD_CRASH)
    values = results["pe.values"]
    assert values.points == 3 * Decimal(12) / Decimal(16)  # per input: 12 of 16 passed
    assert "(the odd inputs) your code raised ValueError" in (values.student_feedback or "")


LAYER_NORM_MODULE = '''
import numpy as np


def layer_norm(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=-1, keepdims=True)
    var = x.var(axis=-1, keepdims=True)
    return gamma * (x - mean) / np.sqrt(var + eps) + beta


def _over_rows(x, gamma, beta, eps=1e-5):
    mean = x.mean(axis=0, keepdims=True)
    var = x.var(axis=0, keepdims=True)
    return gamma * (x - mean) / np.sqrt(var + eps) + beta


def unit_rows(inputs, observed, reference):
    """With gamma = 1 and beta = 0 every row has mean 0."""
    out = observed["y"]
    centred = inputs["x"].shape == out.shape and abs(out.mean(axis=-1)).max() < 1e-6
    return bool(centred), "" if centred else "the rows of the result do not have mean 0"


VARIANTS = {
    "normalised_over_rows": ("The statistics are taken over axis 0 (the rows) instead of each "
                             "row's features (axis -1).", _over_rows),
}
'''
LAYER_NORM_BATTERY = """
function: layer_norm
module: ln.py
reference: {function: layer_norm, outputs: [y]}
parameters:
  x: {array: [n, d], scale: 3.0}
  gamma: {array: [d]}
  beta: {array: [d]}
  eps: {value: 1.0e-5, optional: true}
dims:
  n: {range: [2, 6]}
  d: {choices: [4, 8, 16]}
cases:
  - {name: drawn, repeat: 4}
  # n is fixed at 5: with two rows a matrix normalised over axis 0 holds only +1 and -1, and
  # a row of those can have mean 0 by chance, so the wrong axis would pass this check
  - {name: identity, group: unit, values: {gamma: [1, 1, 1, 1], beta: [0, 0, 0, 0]},
     dims: {n: 5, d: 4}}
checks:
  values: {description: equals the layer norm of each row, allclose: y, rtol: 1.0e-5,
           atol: 1.0e-6}
  centred: {description: each row of the normalised result has mean 0, groups: [unit],
            function: unit_rows}
variants: VARIANTS
"""
LAYER_NORM_RUBRIC = """
slug: layer-norm
title: Layer norm
questions:
  - id: LN
    answer_kind: code
    items:
      - {id: ln.values, points: 2, grader: code, config: {battery: ln.yaml, check: values}}
      - {id: ln.centred, points: 1, grader: code, config: {battery: ln.yaml, check: centred}}
"""


@pytest.mark.parametrize(("source", "expected", "named"), [
    ("def layer_norm(x, gamma, beta, eps=1e-5):\n"
     "    m = x.mean(-1, keepdims=True)\n"
     "    return (gamma * (x - m) / np.sqrt(x.var(-1, keepdims=True) + eps) + beta).tolist()\n",
     {"ln.values": 2, "ln.centred": 1}, ""),
    ("def layer_norm(x, gamma, beta):\n"  # no eps: called without it
     "    m = x.mean(-1, keepdims=True)\n"
     "    return gamma * (x - m) / np.sqrt(x.var(-1, keepdims=True) + 1e-5) + beta\n",
     {"ln.values": 2, "ln.centred": 1}, ""),
    ("def layer_norm(x, gamma, beta, eps=1e-5):\n"
     "    m = x.mean(0, keepdims=True)\n"
     "    return gamma * (x - m) / np.sqrt(x.var(0, keepdims=True) + eps) + beta\n",
     {"ln.values": 0, "ln.centred": 0}, "axis 0"),
])
def test_a_battery_written_from_the_docs_for_another_function(
        run: Grade, tmp_path: Path, source: str, expected: dict[str, int], named: str) -> None:
    (tmp_path / "ln.py").write_text(LAYER_NORM_MODULE)
    (tmp_path / "ln.yaml").write_text(LAYER_NORM_BATTERY)
    (tmp_path / "layer-norm.yaml").write_text(LAYER_NORM_RUBRIC)
    results = run(tmp_path / "layer-norm.yaml", "import numpy as np\n\n" + source)
    assert points(results) == expected, {k: r.feedback for k, r in results.items()}
    assert all(r.confidence == 1.0 for r in results.values())
    if named:
        assert named in (results["ln.values"].student_feedback or "")


def test_a_near_miss_fails_unless_rounded_results_are_accepted(run: Grade, tmp_path: Path) -> None:
    import shutil

    rounded = mha(result="np.round(out, 4)")
    results = run(MHA_RUBRIC, rounded)
    values = results["mha.values"]
    assert values.points < 4 and values.confidence == 0.8  # per input: all, or nearly all, fail
    assert "only to about 1e-3" in (values.student_feedback or "")
    folder = tmp_path / "mha"
    shutil.copytree(MHA_RUBRIC.parent, folder)
    battery = folder / "mha.yaml"
    battery.write_text(battery.read_text().replace(
        "adaptations:\n", "adaptations:\n  rounded: {credit: 1/2}\n"))
    accepted = run(folder / MHA_RUBRIC.name, rounded)["mha.values"]
    assert accepted.points == 2 and accepted.confidence == 0.8
