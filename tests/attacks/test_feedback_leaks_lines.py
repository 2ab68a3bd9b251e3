"""Hidden inputs in student feedback through the line an exception is reported at. Student
feedback names the line of the student's program an exception came from ("raised ValueError
at line 3: `...`"); the number comes from the child's traceback, and a program chooses it: it
can rewrite a function's code object (`co_firstlineno`) or compile text of its own under the
submission's file name, so the same statement raising reports line 3 + (a value of the
inputs). Such a number is no line of the program, or a blank or comment line of it: found
here reported as "at line 920" and "at line 77" in a program of 20 lines, word for word
different under two input secrets. As in test_feedback_leaks.py: graded under two input
secrets, the student's feedback must be word for word the same.

What stays (docs/hardening.md): which of its own code lines a program reports is still its
choice, a bounded choice among lines of its source, like which of its lines raises."""

from __future__ import annotations

import pytest

from tests.attacks.code_grading import Grading
from tests.attacks.test_feedback_leaks import assert_feedback_hides_the_inputs
from tests.attacks.test_feedback_leaks import graders as graders  # the fixture, re-exported

PADDING = "\n" * 200 + "# the end\n"
PROGRAMS = {
    "a code object moved past the end of the program": """
def attention(Q, K, V):
    def inner():
        raise ValueError("boom")
    inner.__code__ = inner.__code__.replace(co_firstlineno=3 + int(abs(Q.sum()) * 1e3) % 997)
    inner()
""",
    "a code object moved onto blank lines of the program": """
def attention(Q, K, V):
    def inner():
        raise ValueError("boom")
    inner.__code__ = inner.__code__.replace(co_firstlineno=30 + int(abs(Q.sum()) * 1e3) % 150)
    inner()
""" + PADDING,
    "text compiled under the submission's name": """
def attention(Q, K, V):
    padding = "\\n" * (int(abs(Q.sum()) * 1e3) % 97)
    exec(compile(padding + "raise ValueError('boom')", "<submission>", "exec"))
""",
    "a lambda's line moved": """
def attention(Q, K, V):
    f = lambda: 1 / 0
    f.__code__ = f.__code__.replace(co_firstlineno=500 + int(abs(K.sum()) * 1e3) % 500)
    return f()
""",
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_the_line_reported_is_no_value_of_the_inputs(graders: tuple[Grading, Grading],
                                                      name: str) -> None:
    assert_feedback_hides_the_inputs(graders, PROGRAMS[name])
