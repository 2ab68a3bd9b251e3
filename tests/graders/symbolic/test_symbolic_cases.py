"""Golden symbolic cases, hostile input, and the worker's latency."""

from __future__ import annotations

import statistics
import time
from decimal import Decimal
from pathlib import Path

import pytest
import yaml

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult, Status
from graders.rubric import BUNDLED_RUBRICS, Question, RubricItem, load_rubric
from graders.symbolic import GRADER, SymbolicPool

CASES = yaml.safe_load(
    (Path(__file__).resolve().parent.parent / "cases" / "symbolic" / "expressions.yaml").read_text()
)
RUBRIC = load_rubric(BUNDLED_RUBRICS / "cs224n-attention.yaml").rubric


def _item(case: dict) -> tuple[Question, RubricItem]:
    if "config" in case:
        item = RubricItem(id="x", points=Decimal(2), grader="symbolic", config=case["config"])
        return Question(id="X", items=(item,)), item
    question = RUBRIC.question_of(case["item"])
    return question, next(i for i in question.items if i.id == case["item"])


def grade(case: dict, resources: GradingResources, parts: bool = False) -> ItemResult:
    question, item = _item(case)
    text = case["answer"]
    answer = LocatedAnswer(question.id, text, start=0, end=len(text),
                           parts={item.id: text} if parts else {})
    submission = ParsedSubmission(text=text, format="text", answers={question.id: answer})
    context = GradingContext(RUBRIC, question, submission, resources)
    return GRADER.grade(item, answer, context)


def test_there_are_at_least_twenty_cases():
    assert len(CASES) >= 20


@pytest.mark.parametrize("case", CASES, ids=[c["id"] for c in CASES])
def test_symbolic_case(case, resources):
    result = grade(case, resources)
    assert result.points == Decimal(str(case["points"])), result.feedback
    assert result.status == Status(case.get("status", "graded")), result.feedback
    if "feedback" in case:
        assert case["feedback"] in result.feedback
    if result.status is Status.GRADED:
        expression = [e for e in result.evidence if e.kind == "expression"]
        assert expression and expression[0].start is not None
        assert case["answer"][expression[0].start:expression[0].end] == expression[0].text


def test_a_json_part_may_be_the_bare_expression(resources):
    result = grade({"item": "1b", "answer": "\\beta(k_a + k_b)"}, resources, parts=True)
    assert result.points == 2


HOSTILE = [
    "10^{10^{10}}",
    "(10^9)!",
    "{" * 3000 + "k_a" + "}" * 3000,
    "__import__('os').system('touch {marker}')",
    "\\beta(k_a + k_b)" * 200,
]


@pytest.mark.parametrize(
    "expression", HOSTILE, ids=["tower", "factorial", "braces", "code", "long"]
)
def test_hostile_expressions_end_fast_without_executing(expression, resources, tmp_path):
    marker = tmp_path / "pwned"
    text = "q = " + expression.replace("{marker}", str(marker))
    started = time.perf_counter()
    result = grade({"item": "1b", "answer": text}, resources)
    assert time.perf_counter() - started < 2.0
    assert result.points == 0
    assert result.status in (Status.NEEDS_REVIEW, Status.GRADED)
    assert not marker.exists()


def test_worker_timeout_kills_and_replaces_the_worker():
    with SymbolicPool(timeout=1.0) as pool:
        started = time.perf_counter()
        reply = pool.run({"op": "compare", "student": "10^{10^{10}}", "expected": "1",
                          "scalars": []})
        assert reply == {"ok": False, "error": "timeout"}
        assert time.perf_counter() - started < 3.0
        assert pool.restarts == 1
        after = pool.run({"op": "compare", "student": "k_a", "expected": "k_a", "scalars": []})
        assert after["verdict"] == "equivalent"


def test_worker_never_sees_oversized_requests():
    with SymbolicPool() as pool:
        reply = pool.run({"op": "compare", "student": "x" * 10_000, "expected": "x"})
        assert reply == {"ok": False, "error": "expression too long"}


def test_per_expression_latency(resources, capsys):
    pool = resources.shared("symbolic", SymbolicPool)
    pool.run({"op": "ping"})
    timings = []
    for case in CASES[:12]:
        started = time.perf_counter()
        grade(case, resources)
        timings.append(time.perf_counter() - started)
    median = statistics.median(timings)
    with capsys.disabled():
        print(f"\nsymbolic: median {median * 1000:.0f} ms, max {max(timings) * 1000:.0f} ms "
              f"per graded item ({len(timings)} items, warm worker)")
    assert median < 1.0
