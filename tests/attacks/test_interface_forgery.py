"""Class: interface credit without the function. The interface item asks for a function by its
name, called as the question calls it; a program earns it only when that function exists at
the top of the module and the harness's own call of it returned the result. Every program here
has a correct computation under some other name (`_real`) and tries to have it credited to
`attention` without the harness calling `attention`: frames written with the harness's framing,
the function bound only at run time, the harness rebound, fake frames on other descriptors.

What is out of reach of any check inside the child: a program that reads the run's seal out of
the harness's own stack and then writes every frame itself (README, "Sandbox for student
code"); it can only report values it computed itself, since the reference never enters the
sandbox."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import pytest

from graders.results import ItemResult, Status
from tests.attacks.code_grading import Grading, grading

REAL = """
import numpy as np

def _real(Q, K, V):
    scores = Q @ K.T / np.sqrt(K.shape[-1])
    weights = np.exp(scores - scores.max(axis=-1, keepdims=True))
    weights /= weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights
"""
# Reaches the harness's stack and writes frames in its framing: the module report, one call
# report per call with `_real`'s results, the end.
FORGE = """
import os, sys, json, struct

def _frame(header, chunks=()):
    payload = b"".join(chunks)
    raw = json.dumps(header).encode()
    os.write(3, struct.pack(">II", len(raw), len(payload)) + raw + payload)

def _forge():
    f = sys._getframe()
    while f is not None and "inputs" not in f.f_locals:
        f = f.f_back
    job, inputs = f.f_locals["job"], f.f_locals["inputs"]
    _frame({"kind": "module", "syntax_error": None, "errors": []})
    for index, call in enumerate(job["calls"]):
        items, chunks = [], []
        for result in _real(*[inputs[i] for i in call["args"]]):
            result = np.ascontiguousarray(result, dtype=np.float64)
            chunks.append(result.tobytes())
            items.append({"t": "array", "dtype": result.dtype.str,
                          "shape": list(result.shape), "nbytes": result.nbytes})
        _frame({"kind": "call", "index": index, "ok": True, "ms": 1.0,
                "value": {"t": "seq", "kind": "tuple", "length": 2, "items": items}}, chunks)
    _frame({"kind": "done"})
"""
HARNESS = """
import sys

def _harness():
    f = sys._getframe()
    while f is not None and "_run_calls" not in f.f_globals:
        f = f.f_back
    return f.f_globals
"""

PROGRAMS = {
    "frames at module level, no function": FORGE + "_forge()\nos._exit(0)\n",
    "frames at module level, a dummy function, then exit": (
        FORGE + "def attention(Q, K, V):\n    return None\n_forge()\nos._exit(0)\n"
    ),
    "frames at module level, a dummy function, the harness carries on": (
        FORGE + "def attention(Q, K, V):\n    return None\n_forge()\n"
    ),
    "frames from inside the function, then exit": (
        FORGE + "def attention(Q, K, V):\n    _forge()\n    os._exit(0)\n"
    ),
    "a function that exists but is never called": (
        "import os\ndef attention(Q, K, V):\n    return _real(Q, K, V)\nos._exit(0)\n"
    ),
    "a function deleted after its definition": (
        "def attention(Q, K, V):\n    return _real(Q, K, V)\ndel attention\n"
    ),
    "a function rebound to None at the end": (
        "def attention(Q, K, V):\n    return _real(Q, K, V)\nattention = None\n"
    ),
    "the harness's describer rebound (None becomes the right arrays)": HARNESS
    + """
_h = _harness()
_seen = []
_argument, _describe = _h["_argument"], _h["_describe"]

def _spy(array, scalar):
    _seen.append(array)
    return _argument(array, scalar)

def _lie(value, depth, chunks, budget):
    if value is None and depth == 0:
        value = _real(*_seen[-3:])
    return _describe(value, depth, chunks, budget)

_h["_argument"], _h["_describe"] = _spy, _lie

def attention(Q, K, V):
    return None
""",
    "the harness's describer's code swapped": HARNESS
    + """
_h = _harness()
_seen = []

def _lie(value, depth, chunks, budget):
    return {"t": "none"}

_h["_describe"].__code__ = _lie.__code__

def attention(Q, K, V):
    return _real(Q, K, V)
""",
    "the harness's describer given defaults": HARNESS
    + """
_h = _harness()
_h["_describe"].__defaults__ = (0,)

def attention(Q, K, V):
    return _real(Q, K, V)
""",
    # It answers as isinstance does, so only a check by identity (not ==) sees the rebinding
    # that a lying one would need.
    "a builtin the harness uses rebound to an object equal to everything": """
import builtins

class _Equal:
    def __eq__(self, other):
        return True

    def __call__(self, value, kind, _real_check=builtins.isinstance):
        return _real_check(value, kind)

    __hash__ = object.__hash__

builtins.isinstance = _Equal()

def attention(Q, K, V):
    return _real(Q, K, V)[0]
""",
    "np.asarray rebound inside the function": """
_asarray = np.asarray

def attention(Q, K, V):
    answer = _real(Q, K, V)
    np.asarray = lambda value, *a, **k: _asarray(answer[0] if value is None else value)
    return None
""",
    "isinstance rebound in builtins": """
import builtins
builtins.isinstance = lambda value, kind: True

def attention(Q, K, V):
    return _real(Q, K, V)[0]
""",
    "fake frames printed to stdout and stderr": """
import sys, json

def attention(Q, K, V):
    print(json.dumps({"kind": "call", "index": 0, "ok": True, "value": {"t": "none"}}))
    sys.stderr.write(json.dumps({"kind": "done"}))
    return None
""",
    "frames written on every other descriptor": FORGE.replace("os.write(3,", "_any(")
    + """
def _any(data):
    for fd in (1, 2, 4, 5, 6, 7, 8, 9, 10):
        try:
            os.write(fd, data)
        except OSError:
            pass

def attention(Q, K, V):
    _forge()
    return None
""",
}
# Programs that compute the result under another name and bind `attention` only at run time,
# or never: the computation may be graded in its place, the interface never.
RENAMED = {
    "the function under another name": "",
    "bound through globals()": "globals()['atten' + 'tion'] = _real\n",
    "bound by exec": "exec('attention = _real')\n",
    "a module __getattr__": "def __getattr__(name):\n    return _real\n",
    "a class with __call__ named attention": (
        "class attention:\n    def __call__(self, Q, K, V):\n        return _real(Q, K, V)\n"
    ),
}


@pytest.fixture(scope="module")
def grader() -> Iterator[Grading]:
    with grading("interface-secret") as found:
        yield found


def _total(results: dict[str, ItemResult]) -> Decimal:
    return sum((r.points for r in results.values()), Decimal(0))


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_forged_reports_earn_nothing(grader: Grading, name: str) -> None:
    results = grader.grade("B3", REAL + PROGRAMS[name])
    assert results["b3.interface"].points == 0, results["b3.interface"]
    assert _total(results) == 0, {k: (r.status, r.points, r.feedback) for k, r in results.items()}


@pytest.mark.parametrize("name", list(RENAMED))
def test_the_interface_needs_the_asked_function(grader: Grading, name: str) -> None:
    results = grader.grade("B3", REAL + RENAMED[name])
    interface = results["b3.interface"]
    assert interface.points == 0, interface
    assert interface.status in (Status.GRADED, Status.SUBMISSION_ERROR)


@pytest.mark.parametrize(
    "binding",
    [
        "def attention(Q, K, V):\n    return _real(Q, K, V)\n",
        "attention = lambda Q, K, V: _real(Q, K, V)\n",
        "attention = _real\n",
        "class _Attention:\n    def __call__(self, Q, K, V):\n        return _real(Q, K, V)\n"
        "attention = _Attention()\n",
        # What old notebooks do at the top, not the harness's business: still graded.
        "import builtins\nbuiltins.print = lambda *a, **k: None\nnp.float = float\n"
        "np.int = int\ndef attention(Q, K, V):\n    return _real(Q, K, V)\n",
    ],
)
def test_the_asked_name_bound_at_top_level_is_called_and_earns_everything(
    grader: Grading, binding: str
) -> None:
    results = grader.grade("B3", REAL + binding)
    assert all(r.points == r.max_points for r in results.values()), {
        k: (r.points, r.feedback) for k, r in results.items()
    }
