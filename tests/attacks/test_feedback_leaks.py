"""Class: hidden inputs in student feedback. A program chooses what the grader reports about it
(an exception's class and message, its exit status, what it returns, prints or writes on the
result channel), so each of those can carry values of the hidden inputs. Every program here
computes a value from its inputs and tries to get it shown; the same program is graded under
two input secrets (two different sets of hidden inputs), and the student's feedback must be
word for word the same: nothing shown depends on the inputs. Staff still see what happened.

Each program's control flow is the same whatever the inputs (the same line raises, the same
shape of result comes back), so only a leak of content can make the two feedbacks differ. What
control flow itself tells (which check passed, which line raised, which of Python's exception
classes) is a bounded choice among words of the grader or of the source, never a value."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from graders.results import ItemResult
from tests.attacks.code_grading import Grading, grading, staff_text, student_text

# `_spelled(x)`: the inputs' sum as letters (digits are the first thing a filter looks for).
PRELUDE = """
import numpy as np

def _spelled(a):
    digits = str(int(abs(float(np.asarray(a, dtype=float).sum())) * 1e6) % 10**9)
    return "".join("qwertyuiop"[int(c)] for c in digits)

"""
# The frames of the harness's own stack, for a program that reads its inputs at module level.
INPUTS = """
import sys
_f = sys._getframe()
while _f is not None and "inputs" not in _f.f_locals:
    _f = _f.f_back
_inputs = _f.f_locals["inputs"]
"""
FRAME = """
import os, json, struct

def _write(header):
    raw = json.dumps(header).encode()
    os.write(3, struct.pack(">II", len(raw), 0) + raw)
"""

PROGRAMS = {
    "an exception class named from the values": """
def attention(Q, K, V):
    raise type("Leak" + _spelled(Q), (Exception,), {})("boom")
""",
    "an exception class named from the values, with digits": """
def attention(Q, K, V):
    raise type("Leak%d" % int(abs(Q.sum()) * 1e6), (ValueError,), {})()
""",
    "a message with the numbers": """
def attention(Q, K, V):
    raise ValueError("Leak sum " + str(Q.sum()) + " first " + repr(float(Q[0, 0])))
""",
    "a message spelled in letters": """
def attention(Q, K, V):
    raise ValueError("Leak " + _spelled(Q))
""",
    "a message in Arabic-Indic digits": """
def attention(Q, K, V):
    digits = str(int(abs(Q.sum()) * 1e6))
    raise ValueError("Leak " + "".join(chr(0x660 + int(c)) for c in digits))
""",
    "the repr of the array": """
def attention(Q, K, V):
    raise RuntimeError(repr(Q) + repr(K))
""",
    "a very long message ending in the value": """
def attention(Q, K, V):
    raise ValueError("a" * 100_000 + "Leak" + _spelled(Q))
""",
    "a KeyError whose key is the value": """
def attention(Q, K, V):
    return {}["Leak" + _spelled(Q)]
""",
    "an AttributeError naming the value": """
def attention(Q, K, V):
    return getattr(Q, "Leak" + _spelled(Q))
""",
    "a TypeError naming a class made from the value": """
def attention(Q, K, V):
    return type("Leak" + _spelled(Q), (), {})() + 1
""",
    "an exception whose str() is the value": """
class Oops(Exception):
    def __str__(self):
        return "Leak" + _spelled(self.args[0])

def attention(Q, K, V):
    raise Oops(Q)
""",
    "an exception whose str() raises": """
class Oops(Exception):
    def __str__(self):
        raise ValueError("Leak" + _spelled(self.args[0]))

def attention(Q, K, V):
    raise Oops(Q)
""",
    "an exit status from the values": """
import os

def attention(Q, K, V):
    os._exit(int(abs(Q.sum()) * 1e6) % 256)
""",
    "a frame kind written on the result channel": FRAME
    + """
def attention(Q, K, V):
    _write({"kind": "Leak" + _spelled(Q)})
    os._exit(0)
""",
    "a forged syntax error naming the values": FRAME
    + INPUTS
    + """
_write({"kind": "module", "errors": [],
        "syntax_error": {"line": 1, "offset": 1, "message": "Leak" + _spelled(_inputs[0])}})
os._exit(0)

def attention(Q, K, V):
    return Q
""",
    "a top-level error naming the values": INPUTS
    + """
raise ValueError("Leak" + _spelled(_inputs[0]))

def attention(Q, K, V):
    return Q
""",
    "a returned string": """
def attention(Q, K, V):
    return "Leak" + str(Q), repr(K)
""",
    "a returned dict keyed by the values": """
def attention(Q, K, V):
    return {"Leak" + _spelled(Q): Q, _spelled(K): K}
""",
    "a returned array subclass whose repr is the value": """
class Shown(np.ndarray):
    def __repr__(self):
        return "Leak" + _spelled(self)
    __str__ = __repr__

def attention(Q, K, V):
    return np.zeros(7).view(Shown) + Q.sum(), np.zeros(9).view(Shown)
""",
    "a returned object whose type is named from the values": """
def attention(Q, K, V):
    kind = type("Leak" + _spelled(Q), (), {})
    return kind(), kind()
""",
    "a returned array whose length is the value": """
def attention(Q, K, V):
    n = 1000 + int(abs(Q.sum()) * 1e6) % 1000
    return np.zeros(n), np.zeros(n + 1)
""",
    "a returned array whose shape is the value": """
def attention(Q, K, V):
    n = 2 + int(abs(Q.sum()) * 1e3) % 50
    return np.zeros((n, 97)), np.zeros((n, 89, 1))
""",
    "a returned dtype from the values": """
def attention(Q, K, V):
    return Q.astype("U%d" % (20 + int(abs(Q.sum()) * 1e3) % 50)), Q.astype(np.complex128)
""",
    "NaN where the inputs are positive": """
def attention(Q, K, V):
    out = np.ones((7, 11))
    out.flat[:Q.size][Q.ravel() > 0] = np.nan
    return out, out
""",
    "printing, stderr and warnings": """
import sys, warnings

def attention(Q, K, V):
    print("Leak", Q)
    print("Leak", K, file=sys.stderr)
    warnings.warn("Leak" + _spelled(V))
    return Q, K
""",
    "a result that raises when compared or converted": """
class Sly:
    def __init__(self, q):
        self.q = q
    def __eq__(self, other):
        raise ValueError("Leak" + _spelled(self.q))
    def __array__(self, *args, **kwargs):
        raise ValueError("Leak" + _spelled(self.q))
    def __len__(self):
        raise ValueError("Leak" + _spelled(self.q))
    def __repr__(self):
        return "Leak" + _spelled(self.q)

def attention(Q, K, V):
    return Sly(Q), Sly(K)
""",
    "writing the values to a file": """
def attention(Q, K, V):
    with open("/tmp/Leak" + _spelled(Q), "w") as out:
        out.write(repr(Q))
    return Q, K
""",
}


@pytest.fixture(scope="module")
def graders() -> Iterator[tuple[Grading, Grading]]:
    with grading("first-secret") as one, grading("second-secret") as two:
        yield one, two


def _shown(results: dict[str, ItemResult]) -> list[str]:
    # The student's own source lines, quoted in backticks, are theirs to read.
    return [re.sub(r"`[^`]*`", "`line`", text) for text in student_text(results)]


def assert_feedback_hides_the_inputs(graders: tuple[Grading, Grading], program: str) -> None:
    """Graded under two input secrets, the student reads word for word the same feedback, with
    no trace of the values, and each text stays short."""
    first, second = (g.grade("B3", PRELUDE + program) for g in graders)
    assert [r.points for r in first.values()] == [r.points for r in second.values()]
    assert _shown(first) == _shown(second), (_shown(first), _shown(second))
    shown = " ".join(_shown(first))
    assert "Leak" not in shown and "qwertyuiop" not in shown, shown
    assert all(len(text) < 3000 for text in _shown(first))


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_nothing_of_the_inputs_reaches_the_student(
    graders: tuple[Grading, Grading], name: str
) -> None:
    assert_feedback_hides_the_inputs(graders, PROGRAMS[name])


def test_staff_see_what_students_do_not(graders: tuple[Grading, Grading]) -> None:
    results = graders[0].grade("B3", PRELUDE + PROGRAMS["an exception class named from the values"])
    assert re.search(r"Leak[qwertyuiop]{3,}", staff_text(results)), staff_text(results)
    results = graders[0].grade("B3", PRELUDE + PROGRAMS["an exit status from the values"])
    assert "exit status" in staff_text(results)


def test_a_salvaged_local_named_from_the_values_is_not_named(
    graders: tuple[Grading, Grading],
) -> None:
    # B4 decides its causal check on what the function computed before it crashed: a local
    # variable written through locals() under a name made from the inputs.
    program = (
        PRELUDE
        + """
def masked_attention(Q, K, V):
    n, m = Q.shape[0], K.shape[0]
    weights = np.tril(np.ones((n, m))) / np.arange(1, m + 1)[:n, None]
    locals()["Leak" + _spelled(Q)] = weights
    raise ValueError("late")
"""
    )
    first, second = (g.grade("B4", program) for g in graders)
    assert _shown(first) == _shown(second)
    assert "Leak" not in " ".join(_shown(first))
