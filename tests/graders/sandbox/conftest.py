from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from graders.sandbox import Call, Job, JobOutcome, Sandbox, SandboxPolicy

CORRECT = """
import numpy as np
def attention(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ V, w
"""

_rng = np.random.default_rng(7)
INPUTS = (_rng.standard_normal((3, 4)), _rng.standard_normal((5, 4)), _rng.standard_normal((5, 2)))


def reference() -> tuple[np.ndarray, np.ndarray]:
    q, k, v = INPUTS
    s = q @ k.T / np.sqrt(q.shape[-1])
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ v, w


def job(source: str, calls: int = 1, timeout_s: float | None = None) -> Job:
    return Job(source, INPUTS, tuple(Call("attention", (0, 1, 2)) for _ in range(calls)),
               timeout_s)


def run(sandbox: Sandbox, source: str, calls: int = 1, timeout_s: float | None = None
        ) -> JobOutcome:
    return sandbox.run(job(source, calls, timeout_s))


def assert_healthy(sandbox: Sandbox) -> None:
    """The next job after an attack runs and returns exactly the right arrays."""
    outcome = run(sandbox, CORRECT, calls=2)
    assert outcome.status == "completed", outcome
    expected = reference()
    for call in outcome.calls:
        assert call is not None and call.ok and call.value is not None
        output, weights = (item.array for item in call.value.items)
        assert output is not None and weights is not None
        np.testing.assert_allclose(output, expected[0], rtol=1e-12)
        np.testing.assert_allclose(weights, expected[1], rtol=1e-12)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    box = Sandbox(SandboxPolicy(timeout_s=0.5))
    missing = box.missing_required()
    if missing:
        box.close()
        pytest.skip(f"this machine cannot provide the sandbox layers {missing} "
                    "(needs root, namespaces and seccomp)")
    yield box
    box.close()
