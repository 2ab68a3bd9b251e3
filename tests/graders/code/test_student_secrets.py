"""What a student's program can learn through its own feedback: nothing of the hidden inputs.

A program chooses what the grader reports about it (an exception's class and message, the value
it returns), so anything derived from those may encode the inputs. Students see the kind of
failure; staff see everything. And no item, the interface included, earns credit unless the
module itself binds the asked function."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.code.plan import module_bindings
from graders.results import Status
from tests.graders.code.conftest import Grade

LEAK_CLASS = """
import numpy as np
def attention(Q, K, V):
    name = "Leak" + str(int(abs(Q[0, 0]) * 1e6)) + "x" + str(Q.shape[0])
    raise type(name, (Exception,), {})("n=%d d=%d" % Q.shape)
"""
LEAK_MESSAGE = """
import numpy as np
def attention(Q, K, V):
    raise ValueError("first value " + repr(float(Q[0, 0])) + " shape " + str(Q.shape))
"""
LEAK_SHAPE = """
import numpy as np
def attention(Q, K, V):
    return np.zeros(Q.shape[0] * 1000 + K.shape[0])
"""


def _student_text(results) -> str:
    """Students' feedback without the quoted line of their own source (`...`): that is theirs."""
    text = " ".join(r.student_feedback or "" for r in results.values())
    return re.sub(r"`[^`]*`", "`line`", text)


def test_an_exception_class_named_from_the_inputs_is_not_shown(grade: Grade) -> None:
    results = grade("B3", LEAK_CLASS)
    student = _student_text(results)
    assert "Leak" not in student and not re.search(r"\d{2,}|n=\d", student), student
    assert "an exception of its own class" in student
    assert "Leak" in results["b3.output"].feedback  # staff see what happened


def test_an_exception_message_quoting_the_inputs_is_not_shown(grade: Grade) -> None:
    student = _student_text(grade("B3", LEAK_MESSAGE))
    assert "ValueError" in student and "first value" not in student, student
    assert not re.search(r"\d\.\d|\(\d", student), student


def test_a_returned_shape_is_not_echoed_to_the_student(grade: Grade) -> None:
    results = grade("B3", LEAK_SHAPE)
    student = _student_text(results)
    assert not re.search(r"\(\d{3,}", student) and "shape (" not in student, student
    assert all(r.points == 0 for r in results.values())


FORGED = """
import sys
# module-level code that writes result frames itself, with no function to call
sys.stdout.write("any frames the harness might read\\n")
"""


def test_interface_credit_needs_the_asked_function_to_exist(grade: Grade) -> None:
    results = grade("B3", FORGED)
    assert all(r.status is Status.SUBMISSION_ERROR and r.points == 0 for r in results.values())
    assert all(r.confidence == 1.0 for r in results.values())
    assert "defines no function `attention`" in (results["b3.interface"].student_feedback or "")


# The ways a module binds a name at top level, each wrapped in the compound statements a
# notebook or script puts around definitions.
BINDERS = [
    "def {n}(Q, K, V):\n    return Q\n",
    "{n} = lambda Q, K, V: Q\n",
    "from math import hypot as {n}\n",
    "class {n}:\n    pass\n",
    "for {n} in [print]:\n    pass\n",
    "with open(__file__) as {n}:\n    pass\n",
    "{n}: object = print\n",
    "(a, {n}) = (1, print)\n",
]
WRAPPERS = ["{b}", "if True:\n{i}", "try:\n{i}except Exception:\n    pass\n",
            "try:\n    pass\nexcept Exception:\n{i}", "while False:\n    pass\nelse:\n{i}"]


def _indent(text: str) -> str:
    return "".join("    " + line + "\n" for line in text.splitlines())


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(BINDERS), st.sampled_from(WRAPPERS),
       st.sampled_from(["attention", "attention_v2", "my_attention"]))
def test_module_bindings_find_every_top_level_binding(binder: str, wrapper: str,
                                                      name: str) -> None:
    bound = binder.format(n=name)
    source = wrapper.format(b=bound, i=_indent(bound))
    found = module_bindings(source)
    assert found is not None and name in found
    # a name bound only inside a function, or only as an attribute, is not the module's
    inner = f"def outer():\n{_indent(bound)}\nobj.{name} = print\n"
    assert name not in (module_bindings(inner) or {name})
