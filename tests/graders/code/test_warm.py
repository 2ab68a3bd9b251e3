"""A grading process starts its code sandbox before its first document (`Kind.warm`, called by
app.grading.worker.warm while the caller stores the uploads): kept only once its zygotes run;
when they cannot start, nothing is kept and the first document starts it and meets the
failure, as without the warm-up."""

from __future__ import annotations

import pytest

from graders.code.grader import SANDBOX_KEY
from graders.context import GradingResources
from graders.registry import KINDS, get_kind
from graders.sandbox import Sandbox, SandboxUnavailable


def test_warming_the_code_kind_starts_the_processs_sandbox() -> None:
    resources = GradingResources()
    strategy = get_kind("code")
    assert strategy is not None
    try:
        strategy.warm(resources)
        sandbox = resources.shared(SANDBOX_KEY, lambda: pytest.fail("not started"))
        assert all(pid > 0 for pid in sandbox.zygote_pids())
        pids = sandbox.zygote_pids()
        strategy.warm(resources)  # a second warm-up in the same process starts nothing
        assert resources.shared(SANDBOX_KEY, lambda: pytest.fail("not kept")) is sandbox
        assert sandbox.zygote_pids() == pids
    finally:
        resources.close()


def test_a_sandbox_that_cannot_start_is_not_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    closed: list[Sandbox] = []

    def unavailable(self: Sandbox) -> list[str]:
        raise SandboxUnavailable("the zygote could not start: test")

    monkeypatch.setattr(Sandbox, "missing_required", unavailable)
    monkeypatch.setattr(Sandbox, "close", lambda self: closed.append(self))
    resources = GradingResources()
    strategy = get_kind("code")
    assert strategy is not None
    strategy.warm(resources)
    assert len(closed) == 1
    fresh = resources.shared(SANDBOX_KEY, lambda: closed[0])  # nothing kept: built anew
    assert fresh is closed[0]


@pytest.mark.parametrize("kind", sorted(set(KINDS) - {"code"}))
def test_kinds_that_run_no_program_start_nothing(kind: str) -> None:
    strategy = get_kind(kind)
    if strategy is None:
        pytest.skip(f"{kind} is not built")
    resources = GradingResources()
    strategy.warm(resources)
    assert resources._shared == {}
