"""Golden symbolic cases, hostile input, and the worker's latency."""

from __future__ import annotations

import os
import signal
import statistics
import threading
import time
from decimal import Decimal
from pathlib import Path

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult, Status
from graders.rubric import BUNDLED_RUBRICS, Question, RubricItem, load_rubric
from graders.symbolic import GRADER, SymbolicPool
from graders.symbolic.grader import SYMBOLIC_POOL

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
    # bounded: refused before the worker, or stopped at its CPU budget (3 s) with a wall backstop
    # of ten times that; how fast it ends on a quiet machine is measured in benchmarks/, not here
    assert time.perf_counter() - started < 35.0
    assert result.points == 0
    assert result.status in (Status.NEEDS_REVIEW, Status.GRADED)
    assert not marker.exists()


def test_worker_timeout_kills_and_replaces_the_worker():
    with SymbolicPool(timeout=1.0) as pool:
        started = time.perf_counter()
        reply = pool.run({"op": "compare", "student": "10^{10^{10}}", "expected": "1",
                          "scalars": []})
        assert reply == {"ok": False, "error": "timeout"}
        # 10^(10^10) never finishes: any answer at all means the worker was stopped (the bound is
        # loose because a loaded 2-core machine takes seconds to start the replacement)
        assert time.perf_counter() - started < 30.0
        assert pool.restarts == 1
        after = pool.run({"op": "compare", "student": "k_a", "expected": "k_a", "scalars": []})
        assert after["verdict"] == "equivalent"


def test_worker_never_sees_oversized_requests():
    with SymbolicPool() as pool:
        reply = pool.run({"op": "compare", "student": "x" * 10_000, "expected": "x"})
        assert reply == {"ok": False, "error": "expression too long"}


def test_per_expression_latency(resources, capsys):
    pool = resources.shared(SYMBOLIC_POOL, SymbolicPool)
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


# The class: a derivation that states the expected queries, then discusses an alternative choice
# ("it is also possible to set q_1 = q_2 = ...") with the names written plain, bold or as vectors.
NAME = st.sampled_from(["{}_{}", "\\mathbf{{{}}}_{}", "\\boldsymbol{{{}}}_{}", "\\vec{{{}}}_{}"])
ALTERNATIVE = st.sampled_from([
    "It is also possible to set ${q1}={q2}=\\beta(v_a+v_b)$, the same query for both heads.",
    "Another choice would be ${q1}=\\beta k_b$ and ${q2}=\\beta k_b$, which copies v_b twice.",
    "One could even use ${q1}={q2}=\\beta(\\mu_a+\\mu_b)$ from the previous part.",
])


@settings(max_examples=12, deadline=None)
@given(name=NAME, alternative=ALTERNATIVE)
def test_an_expected_answer_followed_by_a_discussed_alternative_is_never_a_confident_zero(
    name: str, alternative: str, resources: GradingResources
) -> None:
    q1, q2 = name.format("q", 1), name.format("q", 2)
    mu_a, mu_b = name.format("\\mu", "a"), name.format("\\mu", "b")
    text = (f"We design the queries so that each head copies one value:\n"
            f"$${q1}=\\beta {mu_a},\\quad {q2}=\\beta {mu_b},\\quad \\beta \\gg 0$$\n\n"
            + alternative.format(q1=q1, q2=q2))
    result = grade({"item": "1d.i", "answer": text}, resources)
    assert result.status is Status.NEEDS_REVIEW or result.points == result.max_points, (
        result, text)
    if result.status is Status.NEEDS_REVIEW:
        assert "Earlier the answer also gives" in result.feedback


@settings(max_examples=8, deadline=None)
@given(name=NAME)
def test_a_chained_equality_reads_the_value_at_its_end(
    name: str, resources: GradingResources
) -> None:
    """`q_1 = q_2 = value`: q_1's value is the end of the chain, whatever the names' markup."""
    q1, q2 = name.format("q", 1), name.format("q", 2)
    text = f"Both heads use the same query: ${q1}={q2}=\\beta(\\mu_a+\\mu_b)$."
    result = grade({"item": "1d.i", "answer": text}, resources)
    assert "(\\mu_a+\\mu_b)" in result.feedback, result.feedback


def test_the_time_limit_is_the_workers_cpu_time_not_waiting_for_a_core() -> None:
    """A worker stopped (SIGSTOP) spends no CPU: its request is not cut at the CPU budget but
    at the wall backstop, while a computing one is cut at the budget."""
    with SymbolicPool(timeout=0.5) as pool:
        assert pool.run({"op": "compare", "student": "k_a", "expected": "k_a", "scalars": []})
        worker = pool._idle.get()
        pool._idle.put(worker)
        os.kill(worker.process.pid, signal.SIGSTOP)
        timer = threading.Timer(1.5, os.kill, (worker.process.pid, signal.SIGCONT))
        timer.start()
        started = time.perf_counter()
        reply = pool.run({"op": "compare", "student": "k_b", "expected": "k_b", "scalars": []})
        timer.join()
        assert reply.get("verdict") == "equivalent", reply  # waited past 0.5 s of wall time
        assert time.perf_counter() - started >= 1.4
        assert pool.restarts == 0


def test_the_worker_names_a_norm_as_the_grader_writes_it() -> None:
    from graders import notation
    from graders.symbolic import worker

    assert worker.NORM_PREFIX == notation.NORM_PREFIX
    assert notation.norm_names(r"\|k_a\|").startswith(r"\mathrm{norm}_")
