"""Each code question of a submission runs in a sandboxed child of its own (issue 12.2): one
answer's program cannot reach another's results, through the harness's frames or through a
module both import."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from graders.context import GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.engine import grade_submission
from graders.results import ItemResult
from graders.rubric import BUNDLED_RUBRICS, load_rubric
from graders.sandbox import Sandbox
from tests.graders.code.test_grader import B3_CORRECT, B4_CORRECT

LOADED = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml")


def submission(b3: str, b4: str) -> ParsedSubmission:
    answers = {q: LocatedAnswer(q, f"```python\n{code}```") for q, code in (("B3", b3),
                                                                           ("B4", b4))}
    return ParsedSubmission(text="", format="text", answers=answers)


def graded(parsed: ParsedSubmission, resources: GradingResources) -> dict[str, ItemResult]:
    return {r.item_id: r for r in grade_submission(LOADED, parsed, resources).items
            if r.grader == "code"}


@contextmanager
def counting_children() -> Iterator[list[int]]:
    count = [0]
    original = Sandbox._dispatch

    def counting(self: Sandbox, *args, **kwargs):  # type: ignore[no-untyped-def]
        count[0] += 1
        return original(self, *args, **kwargs)

    Sandbox._dispatch = counting  # type: ignore[method-assign]
    try:
        yield count
    finally:
        Sandbox._dispatch = original  # type: ignore[method-assign]


def test_each_code_question_runs_in_its_own_child(resources: GradingResources) -> None:
    with counting_children() as count:
        results = graded(submission(B3_CORRECT, B4_CORRECT), resources)
    assert count[0] == 4  # each question's job runs twice (graders.code.determinism)
    assert sum(r.points for r in results.values()) == 20


def test_a_function_planted_on_numpy_by_b3_is_not_there_for_b4(
        resources: GradingResources) -> None:
    b3 = B3_CORRECT + (
        "\nimport numpy\nalias = numpy\n"
        "def _forged(Q, K, V):\n"
        "    n = Q.shape[0]\n"
        "    s = Q @ K.T / numpy.sqrt(Q.shape[-1])\n"
        "    s = numpy.where(numpy.triu(numpy.ones((n, n)), k=1) == 1, -numpy.inf, s)\n"
        "    w = numpy.exp(s - s.max(axis=-1, keepdims=True))\n"
        "    w = w / w.sum(axis=-1, keepdims=True)\n"
        "    return w @ V, w\n"
        "alias.planted_attention = _forged\n")
    b4 = ("import numpy as np\ndef masked_attention(Q, K, V):\n"
          "    return np.planted_attention(Q, K, V)\n")
    results = graded(submission(b3, b4), resources)
    assert sum(r.points for r in results.values() if r.question == "B4") == 0
    assert "AttributeError" in results["b4.output"].feedback


def test_b3_cannot_write_b4_result_frames_through_a_traceback(
        resources: GradingResources) -> None:
    # B3 reaches the harness through a traceback's frames and writes a perfect-looking frame
    # for every call index; B4 returns None. Alone in its child, B4 earns nothing.
    b3 = B3_CORRECT + """
try:
    raise RuntimeError
except RuntimeError as exc:
    frame = exc.__traceback__.tb_frame
    while frame is not None and "_frame" not in frame.f_globals:
        frame = frame.f_back
    if frame is not None:
        g = frame.f_globals
        for index in range(200):
            g["_frame"](3, {"kind": "call", "index": index, "ok": True,
                            "value": {"t": "none"}}, [])
"""
    b4 = "def masked_attention(Q, K, V):\n    return None\n"
    results = graded(submission(b3, b4), resources)
    assert sum(r.points for r in results.values() if r.question == "B4") == 0
