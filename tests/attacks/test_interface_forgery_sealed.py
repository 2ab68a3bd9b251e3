"""Class: interface forgery with the run's seal. The harness keeps the seal (the mark every
module and call report must carry) in its own frames while the student's code runs, since it
must write it after each call returns; a program reaches those frames through any frame it is
handed (`sys._getframe`, an exception's traceback, a library that asks for its caller) and
their `f_back` links, reads the seal, writes the reports itself and leaves before the harness writes
its own. Why no check inside the child can stop it is in docs/hardening.md ("The seal").

What holds, and is asserted here: the forger can only report values it computed itself (the
references never enter the sandbox), so it earns exactly what the same values earn when its
own function is named as asked, and nothing for values it did not compute. What does not hold
is pinned as a strict xfail: the interface item for a function that was never called."""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal

import pytest

from graders.results import ItemResult
from tests.attacks.code_grading import Grading, grading
from tests.attacks.test_interface_forgery import REAL

WRONG = """
def _wrong(Q, K, V):
    output, weights = _real(Q, K, V)
    return output * 2, weights * 2
"""
# Finds a frame of the harness that holds the seal, from a frame `_start()` gives, and writes
# every report with it: the module's, one per call with `{own}`'s results, the end.
FORGE = """
import os, sys, json, struct

def _frame(header, chunks=()):
    payload = b"".join(chunks)
    raw = json.dumps(header).encode()
    os.write(3, struct.pack(">II", len(raw), len(payload)) + raw + payload)

def _forge(module=True):
    f = _start()
    while f is not None and "job" not in f.f_locals:
        f = f.f_back
    seal, job, inputs = f.f_locals["seal"], f.f_locals["job"], f.f_locals["inputs"]
    if module:  # from inside a call the harness has written the module's report already
        _frame({{"kind": "module", "syntax_error": None, "errors": [], "seal": seal}})
    for index, call in enumerate(job["calls"]):
        items, chunks = [], []
        for result in {own}(*[inputs[i] for i in call["args"]]):
            result = np.ascontiguousarray(result, dtype=np.float64)
            chunks.append(result.tobytes())
            items.append({{"t": "array", "dtype": result.dtype.str,
                          "shape": list(result.shape), "nbytes": result.nbytes}})
        _frame({{"kind": "call", "index": index, "ok": True, "ms": 1.0, "seal": seal,
                "value": {{"t": "seq", "kind": "tuple", "length": 2, "items": items}}}}, chunks)
    _frame({{"kind": "done"}})
    os._exit(0)

def attention(Q, K, V):
    return None
"""
# Ways to be handed a frame below which the harness's lie.
STARTS = {
    "sys._getframe": "def _start():\n    return sys._getframe()\n",
    "an exception's traceback": (
        "def _start():\n    try:\n        raise ValueError\n"
        "    except ValueError as exc:\n        return exc.__traceback__.tb_frame\n"
    ),
    "a library that asks for its caller (logging)": (
        "import logging\n\ndef _start():\n    return logging.currentframe()\n"
    ),
}


@pytest.fixture(scope="module")
def grader() -> Iterator[Grading]:
    with grading("interface-sealed") as found:
        yield found


def _points(results: dict[str, ItemResult]) -> dict[str, Decimal]:
    return {k: r.points for k, r in sorted(results.items())}


def _forged(start: str, own: str, where: str) -> str:
    program = REAL + WRONG + STARTS[start] + FORGE.format(own=own)
    return program + ("_forge()\n" if where == "module" else
                      "attention = lambda Q, K, V: _forge(module=False)\n")


@pytest.mark.parametrize("where", ["module", "call"])
@pytest.mark.parametrize("start", list(STARTS))
def test_a_sealed_forgery_earns_only_what_its_own_values_earn(
    grader: Grading, start: str, where: str
) -> None:
    forged = grader.grade("B3", _forged(start, "_wrong", where))
    named = grader.grade("B3", REAL + WRONG + "attention = _wrong\n")
    assert _points(forged) == _points(named)
    # Values it did not compute earn nothing: doubled outputs and weights fail every check
    # of the values themselves.
    assert all(forged[k].points == 0 for k in ("b3.output", "b3.weights", "b3.row_softmax"))


@pytest.mark.xfail(strict=True, reason="residual: a program that reads the seal off the "
                   "harness's stack writes the reports itself (docs/hardening.md, 'The seal')")
@pytest.mark.parametrize("start", list(STARTS))
def test_the_interface_item_for_a_function_never_called(grader: Grading, start: str) -> None:
    results = grader.grade("B3", _forged(start, "_real", "module"))
    assert results["b3.interface"].points == 0
