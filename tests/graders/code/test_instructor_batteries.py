"""What an instructor writing a battery for a function of their own needs, from the docs alone:
a parameter whose default is None (`mask=None`) passed only by the cases that give it, batch
and head axes, schema problems said with the line and the field (never pydantic's report), and
grades a careful grader agrees with on the bugs and oddities of real submissions: a library
the sandbox does not have, a helper defined in another answer, results off by float32."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import nbformat
import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from graders.code import GRADER
from graders.code.battery import BatteryError
from graders.code.draw import draw_case, expand
from graders.code.functions import build_function_battery, load_function_battery
from graders.code.imports import borrowed_imports
from graders.code.libraries import unavailable_imports
from graders.context import GradingContext, GradingResources
from graders.documents import read_submission
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.engine import grade_submission
from graders.results import ItemResult, Status
from graders.rubric import load_rubric, parse_rubric
from tests.graders.code.test_function_batteries import Grade, grade_file, points

EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "examples" / "batched-attention"
RUBRIC = EXAMPLE / "batched-attention.yaml"

SDPA = """import numpy as np

def scaled_dot_product_attention(q, k, v, mask=None):
    d_k = q.shape[-1]
    scores = q @ np.swapaxes(k, -1, -2) / {scale}
    if mask is not None:
        scores = np.where({mask}, scores, -1e9)
    scores = scores - scores.max(axis=-1, keepdims=True)
    weights = np.exp(scores)
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return {result}
"""


def sdpa(scale: str = "np.sqrt(d_k)", mask: str = "mask", result: str = "weights @ v, weights"
         ) -> str:
    return SDPA.format(scale=scale, mask=mask, result=result)


@pytest.fixture
def run(resources: GradingResources) -> Grade:
    return lambda rubric, text: grade_file(resources, rubric, text)


def test_a_default_none_parameter_is_passed_only_by_the_cases_that_give_it() -> None:
    battery = load_function_battery(EXAMPLE / "sdpa.yaml")
    for case in battery.instance(seed=11).cases:
        if case.spec.group == "masked":
            mask = case.inputs["mask"]
            assert mask.dtype == bool and mask.shape == (case.sizes["n"], case.sizes["m"])
        else:
            assert "mask" not in case.inputs
        assert case.inputs["q"].shape == tuple(
            case.sizes[s] for s in ("batch", "heads", "n", "d_k"))


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_a_default_none_parameter_left_out_is_never_drawn(seed: int) -> None:
    battery = load_function_battery(EXAMPLE / "sdpa.yaml")
    spec = battery.spec
    for index, (case, name, last) in enumerate(expand(spec)):
        drawn = draw_case(spec, case, name, index, seed, last_repeat=last)
        assert ("mask" in drawn.inputs) is (case.values.get("mask") is not None)


@pytest.mark.parametrize(("source", "expected", "named"), [
    (sdpa(), {"sdpa.interface": 1, "sdpa.output": 2, "sdpa.weights": 1, "sdpa.masked": 2}, ""),
    (sdpa(scale="1.0"), {"sdpa.interface": 1, "sdpa.output": 0, "sdpa.weights": 0,
                         "sdpa.masked": 0}, "sqrt(d_k)"),
    (sdpa(mask="~mask"), {"sdpa.interface": 1, "sdpa.output": 2, "sdpa.weights": 1,
                          "sdpa.masked": 0}, "wrong way round"),
    # no place for the mask at all: called without it, so the masked cases fail
    (sdpa().replace("v, mask=None)", "v)").replace("    if mask is not None:\n", "    if False:\n"),
     {"sdpa.interface": 1, "sdpa.output": 2, "sdpa.weights": 1, "sdpa.masked": 0},
     "never applied"),
    # einsum over the named axes: odd but correct
    ("import numpy as np\n\ndef scaled_dot_product_attention(q, k, v, mask=None):\n"
     "    s = np.einsum('bhqd,bhkd->bhqk', q, k) / np.sqrt(q.shape[-1])\n"
     "    if mask is not None:\n        s = np.where(mask.astype(bool), s, -1e9)\n"
     "    w = np.exp(s - s.max(-1, keepdims=True))\n    w /= w.sum(-1, keepdims=True)\n"
     "    return np.einsum('bhqk,bhkd->bhqd', w, v), w\n",
     {"sdpa.interface": 1, "sdpa.output": 2, "sdpa.weights": 1, "sdpa.masked": 2}, ""),
])
def test_batched_attention_with_an_optional_mask(run: Grade, source: str,
                                                 expected: dict[str, int], named: str) -> None:
    results = run(RUBRIC, source)
    assert points(results) == expected, {k: r.feedback for k, r in results.items()}
    assert all(r.status is Status.GRADED for r in results.values())
    if named:
        assert named in (results["sdpa.masked"].student_feedback or "")
    for result in results.values():  # the student never reads a drawn size or a case name
        said = result.student_feedback or ""
        assert "causal" not in said and "drawn" not in said


def test_an_answer_that_needs_a_library_the_sandbox_lacks_goes_to_review(run: Grade) -> None:
    scipy = ("from scipy.special import softmax\nimport numpy as np\n\n"
             "def scaled_dot_product_attention(q, k, v, mask=None):\n"
             "    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])\n"
             "    if mask is not None:\n        s = np.where(mask, s, -1e9)\n"
             "    w = softmax(s, axis=-1)\n    return w @ v, w\n")
    results = run(RUBRIC, scipy)
    for result in results.values():
        assert result.status is Status.NEEDS_REVIEW and result.confidence <= 0.5
        assert "`scipy`" in (result.student_feedback or "")
        assert "does not have" in result.feedback
    # an import it never needs costs nothing: full credit stays graded
    unused = run(RUBRIC, "import scipy\n" + sdpa())
    assert all(r.status is Status.GRADED and r.points == r.max_points for r in unused.values())


def test_a_star_import_from_numpy_works_in_the_sandbox(run: Grade) -> None:
    """`from numpy import *` loads numpy.f2py: the sandbox's NumPy has it, so a correct answer
    written with the star import's bare names earns full credit, graded."""
    star = ("from numpy import *\n\n"
            "def scaled_dot_product_attention(q, k, v, mask=None):\n"
            "    s = matmul(q, swapaxes(k, -1, -2)) / sqrt(q.shape[-1])\n"
            "    if mask is not None:\n        s = where(mask, s, -1e9)\n"
            "    w = exp(s - s.max(-1, keepdims=True))\n    w = w / w.sum(-1, keepdims=True)\n"
            "    return matmul(w, v), w\n")
    results = run(RUBRIC, star)
    assert all(r.status is Status.GRADED and r.points == r.max_points
               for r in results.values()), {k: r.feedback for k, r in results.items()}
    assert unavailable_imports(star) == []


@settings(max_examples=50, deadline=None)
@given(st.sampled_from(["scipy", "torch", "sklearn", "jax", "einops", "numba"]),
       st.sampled_from(["numpy", "math", "itertools", "functools", "typing", "collections"]),
       st.sampled_from(["import {m}", "import {m} as alias", "from {m} import thing",
                        "from {m}.sub import thing", "def f():\n    import {m}\n"]))
def test_only_libraries_outside_the_sandbox_are_named(missing: str, present: str,
                                                      form: str) -> None:
    source = form.format(m=missing) + "\n" + form.format(m=present) + "\n"
    assert unavailable_imports(source) == [missing]
    assert unavailable_imports("from . import sibling\nimport numpy.linalg\n") == []


def test_a_near_miss_no_known_bug_explains_goes_to_review(run: Grade, tmp_path: Path) -> None:
    """float32 results off by about 1e-6 against an atol of 1e-8: a careful grader may read it
    either way, so it is a review with the machine's points, not a confident 0."""
    folder = tmp_path / "sdpa"
    shutil.copytree(EXAMPLE, folder)
    battery = folder / "sdpa.yaml"
    battery.write_text(battery.read_text().replace("atol: 1.0e-6", "atol: 1.0e-12")
                       .replace("rtol: 1.0e-5", "rtol: 1.0e-9"))
    source = sdpa().replace("    d_k = q.shape[-1]\n", "    q, k, v = (t.astype(np.float32) "
                            "for t in (q, k, v))\n    d_k = q.shape[-1]\n")
    results = run(folder / RUBRIC.name, source)
    near = [r for r in results.values() if r.points < r.max_points]
    assert near, {k: r.feedback for k, r in results.items()}
    for result in near:
        assert result.status is Status.NEEDS_REVIEW, result.feedback
        assert "no known bug explains it" in result.feedback
    # the same closeness explained by a known bug stays graded (the bug is named)
    wrong = run(folder / RUBRIC.name, sdpa(scale="1.0"))
    assert all(r.status is Status.GRADED for r in wrong.values())


TWO_QUESTIONS = """
slug: two-code-answers
title: Softmax, then attention that calls it
questions:
  - id: Q1
    answer_kind: code
    items:
      - {id: q1.x, points: 1, grader: code, config: {battery: sdpa.yaml, check: interface}}
  - id: Q2
    answer_kind: code
    items:
ITEMS
"""


def _grade_second(resources: GradingResources, tmp_path: Path, first: str, second: str
                  ) -> dict[str, ItemResult]:
    for name in ("sdpa.yaml", "attention.py"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    items = "\n".join(
        f"      - {{id: q2.{c}, points: 1, grader: code, config: {{battery: sdpa.yaml, "
        f"check: {c}}}}}" for c in ("interface", "output", "weights", "masked"))
    path = tmp_path / "two.yaml"
    path.write_text(TWO_QUESTIONS.replace("ITEMS", items))
    rubric = load_rubric(path).rubric
    _q1, q2 = rubric.questions
    submission = ParsedSubmission(text=first + "\n" + second, format="json", answers={
        "Q1": LocatedAnswer("Q1", first), "Q2": LocatedAnswer("Q2", second)})
    context = GradingContext(rubric=rubric, question=q2, submission=submission,
                             resources=resources)
    return {r.item_id: r for r in GRADER.grade_items(q2.items, LocatedAnswer("Q2", second),
                                                     context)}


HELPERS = """import numpy as np

EPS = 1e-9

def softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / (e.sum(axis=axis, keepdims=True) + EPS * 0)

def unused_helper():
    return undefined_name
"""
USES_HELPER = """def scaled_dot_product_attention(q, k, v, mask=None):
    s = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        s = np.where(mask, s, -np.inf)
    w = softmax(s, axis=-1)
    return w @ v, w
"""


def test_a_helper_defined_in_an_earlier_answer_is_borrowed(
        resources: GradingResources, tmp_path: Path) -> None:
    results = _grade_second(resources, tmp_path, HELPERS, USES_HELPER)
    assert all(r.points == 1 and r.status is Status.GRADED for r in results.values()), \
        {k: r.feedback for k, r in results.items()}
    said = results["q2.output"].student_feedback or ""
    assert "softmax" in said and "Q1" in said


def test_only_what_the_answer_uses_is_borrowed_in_order() -> None:
    rubric = parse_rubric(TWO_QUESTIONS.replace(
        "ITEMS", "      - {id: q2.x, points: 1, grader: code, config: {battery: sdpa.yaml, "
              "check: interface}}"), rubric_dir=EXAMPLE).rubric
    submission = ParsedSubmission(text="", format="json", answers={
        "Q1": LocatedAnswer("Q1", HELPERS), "Q2": LocatedAnswer("Q2", USES_HELPER)})
    context = GradingContext(rubric=rubric, question=rubric.questions[1],
                             submission=submission, resources=GradingResources())
    borrowed, sources = borrowed_imports(USES_HELPER, context)
    assert sources == ["Q1"]
    # softmax uses EPS and np, so they come too; the helper it never calls does not
    assert borrowed.splitlines()[0] == "import numpy as np"
    assert "EPS = 1e-09" in borrowed and "def softmax" in borrowed
    assert "unused_helper" not in borrowed


@pytest.mark.parametrize(("parameter", "said"), [
    ({"mask": {}}, "parameters.mask: a parameter needs array"),
    ({"mask": {"size": "n", "value": 1}}, "not several"),
])
def test_battery_schema_problems_name_the_line_and_the_field(
        tmp_path: Path, parameter: dict[str, object], said: str) -> None:
    raw = yaml.safe_load((EXAMPLE / "sdpa.yaml").read_text())
    raw["parameters"].update(parameter)
    shutil.copy(EXAMPLE / "attention.py", tmp_path / "attention.py")
    path = tmp_path / "sdpa.yaml"
    path.write_text(yaml.safe_dump(raw, sort_keys=False))
    with pytest.raises(BatteryError) as caught:
        build_function_battery(path, raw)
    message = str(caught.value)
    assert message.startswith("sdpa.yaml: line ") and said in message, message
    assert "pydantic" not in message and "input_value" not in message


def test_the_docs_example_runs_its_reference_on_every_case() -> None:
    battery = load_function_battery(EXAMPLE / "sdpa.yaml")
    assert battery.indistinguishable() == []
    masked = [c for c in battery.instance(3).cases if c.spec.group == "masked"]
    weights = [np.asarray(c.inputs["mask"]) for c in masked]
    assert all(np.array_equal(w, np.tril(np.ones_like(w))) for w in weights)


@settings(max_examples=30, deadline=None)
@given(st.sampled_from([("cases", 0, "repeat", "repeats"), ("cases", 0, "name", "nmae"),
                        ("checks", "output", "allclose", "allclose_"),
                        ("checks", "output", "description", "descripton")]))
def test_a_misspelt_battery_field_is_named_with_the_field_meant(
        where: tuple[str, object, str, str]) -> None:
    section, key, field, typo = where
    raw = yaml.safe_load((EXAMPLE / "sdpa.yaml").read_text())
    entry = raw[section][key]
    entry[typo] = entry.pop(field)

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sdpa.yaml"
        shutil.copy(EXAMPLE / "attention.py", Path(folder) / "attention.py")
        path.write_text(yaml.safe_dump(raw, sort_keys=False))
        with pytest.raises(BatteryError) as caught:
            build_function_battery(path, raw)
    assert f"unknown field {typo!r} (did you mean {field!r}?)" in str(caught.value)


NOTEBOOK_RUBRIC = """
slug: notebook-cells
title: A mask, then attention
questions:
  - id: Q3
    labels: ["Question 3"]
    answer_kind: code
    items:
      - {id: q3.interface, points: 1, grader: code, config: {battery: sdpa.yaml, check: interface}}
  - id: Q4
    labels: ["Question 4"]
    answer_kind: code
    items:
      - {id: q4.output, points: 2, grader: code, config: {battery: sdpa.yaml, check: output}}
      - {id: q4.masked, points: 2, grader: code, config: {battery: sdpa.yaml, check: masked}}
"""


@pytest.mark.parametrize("broken", [
    "def causal_mask(n)\n    return np.tril(np.ones((n, n), dtype=bool))\n",
    "def causal_mask(n):\n\treturn 1\n        return 2\n",
    "print 'the mask'\n",
])
def test_a_cell_that_does_not_parse_fails_alone_as_in_jupyter(
        resources: GradingResources, broken: str) -> None:
    cells = [new_code_cell("import numpy as np"), new_markdown_cell("## Question 3"),
             new_code_cell(broken), new_markdown_cell("## Question 4"),
             new_code_cell(sdpa().replace("import numpy as np\n\n", ""))]
    raw = nbformat.writes(new_notebook(cells=cells)).encode()  # type: ignore[no-untyped-call]
    loaded = parse_rubric(NOTEBOOK_RUBRIC, rubric_dir=EXAMPLE)
    submission = read_submission(raw, "hw.ipynb", None, loaded.rubric)
    results = {r.item_id: r for r in grade_submission(loaded, submission, resources).items}
    assert results["q3.interface"].status is Status.SUBMISSION_ERROR
    for item in ("q4.output", "q4.masked"):
        assert results[item].status is Status.GRADED and results[item].points == 2, \
            results[item].feedback
        assert "left out" in results[item].feedback


@settings(max_examples=20, deadline=None)
@given(st.sampled_from(["md", "txt", "tex"]),
       st.sampled_from(["import numpy as np", "`import numpy as np`", "import numpy as np  "]))
def test_an_import_above_the_first_question_of_a_document_is_lent_to_its_answers(
        suffix: str, line: str) -> None:
    """A printed notebook or a Markdown file imports NumPy once, above the first question, in
    no answer: every answer used np and raised NameError, a confident 0 on correct code."""
    loaded = parse_rubric(NOTEBOOK_RUBRIC, rubric_dir=EXAMPLE)
    body = sdpa().replace("import numpy as np\n\n", "")
    text = f"Homework 3\n\n{line}\n\nQuestion 3\n\nSee below.\n\nQuestion 4\n\n{body}"
    submission = read_submission(text.encode(), f"hw.{suffix}", None, loaded.rubric)
    context = GradingContext(rubric=loaded.rubric, question=loaded.rubric.questions[1],
                             submission=submission, resources=GradingResources())
    borrowed, sources = borrowed_imports(submission.answers["Q4"].text, context)
    assert borrowed == "import numpy as np" and sources == ["the top of your document"]


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(["md", "txt", "tex", "py"]),
       st.sampled_from(["np", "numpy"]))
def test_a_transcribed_answer_that_never_imports_numpy_gets_the_usual_import(
        suffix: str, alias: str) -> None:
    """Code written by hand and transcribed (OCR), or typed into a report, leaves out
    `import numpy as np`: it raised NameError, a confident 0 on correct code. A document gets
    the usual import; a .py file, run as it stands, keeps its bug."""
    loaded = parse_rubric(NOTEBOOK_RUBRIC, rubric_dir=EXAMPLE)
    body = sdpa().replace("import numpy as np\n\n", "").replace("np.", f"{alias}.")
    text = f"Question 3\n\nSee below.\n\nQuestion 4\n\n{body}"
    if suffix == "py":
        text = body
    submission = read_submission(text.encode(), f"hw.{suffix}", None, loaded.rubric)
    context = GradingContext(rubric=loaded.rubric, question=loaded.rubric.questions[1],
                             submission=submission, resources=GradingResources())
    borrowed, sources = borrowed_imports(submission.answers["Q4"].text, context)
    if suffix == "py":
        assert borrowed == "" and sources == []
    else:
        wanted = "import numpy as np" if alias == "np" else "import numpy"
        assert borrowed == wanted and sources == ["the usual NumPy import"]


@settings(max_examples=30, deadline=None)
@given(st.sampled_from(["MultiHeadAttention", "LayerNorm", "Model", "attn"]),
       st.sampled_from(["forward", "__call__", "apply"]),
       st.sampled_from(["function", "reference"]))
def test_a_method_named_on_one_side_only_is_refused_in_words(
        cls: str, method: str, where: str) -> None:
    """`function: MultiHeadAttention.forward` with a reference function (or a reference method
    for a function): the battery cannot say how to call both, and the problem says what goes
    with what in words, not the schema's."""
    raw = yaml.safe_load((EXAMPLE / "sdpa.yaml").read_text())
    if where == "function":
        raw["function"] = f"{cls}.{method}"
    else:
        raw["reference"]["function"] = f"{cls}.{method}"
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(EXAMPLE / "attention.py", Path(folder) / "attention.py")
        path = Path(folder) / "sdpa.yaml"
        path.write_text(yaml.safe_dump(raw, sort_keys=False))
        with pytest.raises(BatteryError) as caught:
            build_function_battery(path, raw)
    message = str(caught.value)
    assert "a class's method (`function: LayerNorm.forward`) has a reference method" in message, \
        message
    assert "pattern" not in message


@settings(max_examples=20, deadline=None)
@given(st.sampled_from([("checks", "output", "credit", "the rubric item's `config`"),
                        ("checks", "output", "salvage", "the rubric item's `config`"),
                        ("cases", 0, "allclose", "a check"),
                        ("checks", "output", "repeat", "a case")]))
def test_a_field_written_in_the_wrong_place_says_where_it_belongs(
        where: tuple[str, object, str, str]) -> None:
    """`credit: per_input` in a battery's check (it is the rubric item's) used to be refused
    as "unknown field 'credit' (did you mean 'credit'?)"."""
    section, key, field, place = where
    raw = yaml.safe_load((EXAMPLE / "sdpa.yaml").read_text())
    raw[section][key][field] = "per_input" if field == "credit" else True

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "sdpa.yaml"
        shutil.copy(EXAMPLE / "attention.py", Path(folder) / "attention.py")
        path.write_text(yaml.safe_dump(raw, sort_keys=False))
        with pytest.raises(BatteryError) as caught:
            build_function_battery(path, raw)
    message = str(caught.value)
    assert f"{field!r} is not a field here: it belongs in" in message, message
    assert place in message and "did you mean" not in message, message
