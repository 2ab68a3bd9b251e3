"""Several programs of one submission in one child: every outcome must equal its own run's."""

from __future__ import annotations

import numpy as np
import pytest

from graders.sandbox import Call, Job, JobOutcome, Sandbox
from graders.sandbox.sharing import keeps_to_itself
from tests.graders.sandbox.conftest import CORRECT, INPUTS

MASKED = """
import numpy as np
def masked_attention(Q, K, V):
    n = Q.shape[0]
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    s = np.where(np.triu(np.ones((n, n)), k=1) == 1, -np.inf, s)
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ V, w
"""
SQUARE = (INPUTS[0], INPUTS[0], INPUTS[0][:, :2])
UNSTABLE = CORRECT.replace("s - s.max(axis=-1, keepdims=True)", "s * 1e3")


def first(source: str) -> Job:
    return Job(source, INPUTS, (Call("attention", (0, 1, 2)), Call("attention", (0, 1, 2))))


def second(source: str) -> Job:
    return Job(source, SQUARE, (Call("masked_attention", (0, 1, 2)),))


def summary(outcome: JobOutcome) -> tuple[object, ...]:
    calls = []
    for call in outcome.calls:
        if call is None:
            calls.append(None)
            continue
        arrays = [] if call.value is None else [
            item.array.tobytes() if item.array is not None else item.kind
            for item in call.value.items]
        calls.append((call.index, call.ok, call.error, call.missing, arrays))
    # A completed child's exit code races with the zygote killing what is left of it: the
    # same job alone reports 0 or None, so it is no part of the outcome's meaning.
    exit_code = None if outcome.status == "completed" else outcome.exit_code
    return (outcome.status, outcome.module, tuple(calls), outcome.output, outcome.output_total,
            exit_code, outcome.signal, outcome.violations)


CASES = {
    "both correct": (CORRECT, MASKED),
    "first sets np.seterr(all='raise')": (
        "import numpy as np\nnp.seterr(all='raise')\n" + UNSTABLE, MASKED),
    "first seeds and draws from the global RNG": (
        "import numpy as np\nnp.random.seed(1)\nx = np.random.rand(3)\n" + CORRECT,
        MASKED.replace("return w @ V, w", "return w @ V + np.random.rand(), w")),
    "first turns warnings into errors": (
        "import warnings\nwarnings.simplefilter('error')\n" + CORRECT,
        MASKED.replace("s * 1", "s").replace("np.exp(s -", "np.exp(1e3 * s -")),
    "first rebinds a NumPy function": ("import numpy as np\nnp.exp = lambda x: x\n" + CORRECT,
                                       MASKED),
    "first overflows and warns": (UNSTABLE, MASKED),
    "both print": ("print('a' * 100)\n" + CORRECT, "print('b' * 50)\n" + MASKED),
    "first prints past the kept window": ("print('a' * 9000)\n" + CORRECT,
                                          "print('b')\n" + MASKED),
    "first writes to fd 1 directly": (
        "def attention(Q, K, V):\n    open(1, 'w', closefd=False).write('zz')\n    return Q, K\n",
        MASKED),
    # Past the source check (through an alias), caught by the child's own check.
    "first replaces sys.stdout": (
        "import io\nimport warnings\nx = warnings.sys\nx.stdout = io.StringIO()\n" + CORRECT,
        "print('lost?')\n" + MASKED),
    "first has a syntax error": ("def attention(:\n", MASKED),
    "second has a syntax error": (CORRECT, "def masked_attention(:\n"),
    "first calls os._exit": ("import os\ndef attention(Q, K, V):\n    os._exit(3)\n", MASKED),
    "first holds 60 MB": ("import numpy as np\nbig = np.ones(60_000_000 // 8)\n" + CORRECT,
                          MASKED),
    "first loops forever": ("def attention(Q, K, V):\n    while True:\n        pass\n", MASKED),
    "first defines the second's function": (
        CORRECT + "\ndef masked_attention(Q, K, V):\n    return 1\n", MASKED),
}


@pytest.mark.parametrize("name", list(CASES))
def test_each_outcome_equals_its_own_run(sandbox: Sandbox, name: str) -> None:
    one, two = CASES[name]
    jobs = [first(one), second(two)]
    alone = [sandbox.run(job) for job in jobs]
    together = sandbox.run_together(jobs)
    assert [summary(o) for o in together] == [summary(o) for o in alone]


def test_a_clean_pair_costs_one_child(sandbox: Sandbox) -> None:
    calls = 0
    original = sandbox._dispatch

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        return original(*args, **kwargs)

    sandbox._dispatch = counting  # type: ignore[method-assign]
    try:
        outcomes = sandbox.run_together([first(UNSTABLE), second(MASKED)])
    finally:
        del sandbox._dispatch
    assert calls == 1
    assert [o.status for o in outcomes] == ["completed", "completed"]
    assert "overflow" in outcomes[0].output and outcomes[1].output == ""
    weights = outcomes[1].calls[0].value.items[1].array  # type: ignore[union-attr]
    assert weights is not None and np.allclose(np.triu(weights, k=1), 0)


@pytest.mark.parametrize(("source", "alone"), [
    ("import numpy as np\ndef f(x):\n    x[0] = 1\n    return np.exp(x)\n", True),
    ("import numpy as np\nnp.seterr(all='ignore')\n", True),
    ("class A:\n    def __init__(self):\n        self.w = 1\n", True),
    ("import numpy as np\nnp.float = float\n", False),
    ("import numpy\nnumpy.linalg.norm = len\n", False),
    ("from numpy import random\nrandom.shuffle = None\n", False),
    ("import sys\n", False),
    ("import numpy as np\nnp.core.x.append(1)\n", False),
    ("setattr(int, 'x', 1)\n", False),
    ("import numpy as np\nvars(np)['exp'] = abs\n", False),
    ("f = lambda: 0\nf.__globals__['x'] = 1\n", False),
    ("def attention(:\n", True),
])
def test_what_may_share_a_process(source: str, alone: bool) -> None:
    assert keeps_to_itself(source) is alone
