"""Hidden inputs in student feedback, channels the first rounds did not try: an exception
class whose module or qualified name is built from the values, notes added to an exception
(PEP 678), a cause or context chained under a constant message, an exception group of
exceptions named from the values, SystemExit with a string, an assertion message, and a result
wrong by an amount that is the value (feedback that quotes how far off it is). As in
test_feedback_leaks.py: graded under two input secrets, the student's feedback must be word for
word the same."""

from __future__ import annotations

import pytest

from tests.attacks.code_grading import Grading
from tests.attacks.test_feedback_leaks import assert_feedback_hides_the_inputs
from tests.attacks.test_feedback_leaks import graders as graders  # the fixture, re-exported

PROGRAMS = {
    "an exception class whose module is the value": """
def attention(Q, K, V):
    raise type("Oops", (Exception,), {"__module__": "Leak" + _spelled(Q)})("boom")
""",
    "an exception class whose qualified name is the value": """
def attention(Q, K, V):
    cls = type("Oops", (ValueError,), {})
    cls.__qualname__ = "Leak" + _spelled(Q)
    raise cls("boom")
""",
    "a note added to a constant exception": """
def attention(Q, K, V):
    error = ValueError("boom")
    error.add_note("Leak" + _spelled(Q))
    raise error
""",
    "a constant exception caused by one naming the values": """
def attention(Q, K, V):
    try:
        raise KeyError("Leak" + _spelled(Q))
    except KeyError as inner:
        raise ValueError("boom") from inner
""",
    "a constant exception raised while handling one naming the values": """
def attention(Q, K, V):
    try:
        {}["Leak" + _spelled(Q)]
    except KeyError:
        raise ValueError("boom")
""",
    "an exception group of classes named from the values": """
def attention(Q, K, V):
    raise ExceptionGroup("boom", [type("Leak" + _spelled(Q), (ValueError,), {})("x")])
""",
    "SystemExit with a string": """
def attention(Q, K, V):
    raise SystemExit("Leak" + _spelled(Q))
""",
    "an assertion message": """
def attention(Q, K, V):
    assert False, "Leak" + _spelled(Q)
""",
    "a result off by the value": """
def attention(Q, K, V):
    scores = Q @ K.T / np.sqrt(K.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ V + float(abs(Q).sum()) * 1e-3, weights
""",
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_nothing_of_the_inputs_reaches_the_student_by_other_channels(
    graders: tuple[Grading, Grading], name: str
) -> None:
    assert_feedback_hides_the_inputs(graders, PROGRAMS[name])
