"""Every sandbox limit and layer is an operator's setting (GRADEFORMER_SANDBOX_*), read by the
grading processes and shown by `gradeformer doctor`."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from pydantic import ValidationError

from app.settings import Settings
from graders.sandbox.policy import LAYERS, LIMITS, SandboxPolicy


@given(st.fixed_dictionaries({name: (st.floats(0.1, 60) if kind is float else st.integers(1, 512))
                              for name, kind in LIMITS.items()}),
       st.sets(st.sampled_from(LAYERS)), st.sets(st.sampled_from(LAYERS)))
def test_every_limit_and_layer_reaches_the_policy(
        limits: dict[str, float], required: set[str], disabled: set[str]) -> None:
    env = {f"sandbox_{name}": value for name, value in limits.items()}
    settings = Settings(database_url="sqlite://", **env,  # type: ignore[arg-type]
                        sandbox_required_layers=",".join(sorted(required)),
                        sandbox_disabled_layers=" , ".join(sorted(disabled)))
    policy = SandboxPolicy.from_options(settings.grading_options())
    for name, value in limits.items():
        assert getattr(policy, name) == LIMITS[name](value)
    assert policy.required == frozenset(required) and policy.disabled == frozenset(disabled)


def test_settings_come_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("GRADEFORMER_SANDBOX_TIMEOUT_S", "3.5")
    monkeypatch.setenv("GRADEFORMER_SANDBOX_CGROUP_PIDS", "8")
    monkeypatch.setenv("GRADEFORMER_SANDBOX_ZYGOTES", "2")
    options = Settings(database_url="sqlite://").grading_options()
    policy = SandboxPolicy.from_options(options)
    assert policy.timeout_s == 3.5 and policy.cgroup_pids == 8 and options["sandbox_zygotes"] == 2


@pytest.mark.parametrize(("field", "value", "says"), [
    ("sandbox_required_layers", "seccomp,telepathy", "telepathy"),
    ("sandbox_timeout_s", 0, "greater than 0"),
    ("sandbox_memory_mb", -1, "greater than 0"),
])
def test_a_bad_setting_stops_the_start_with_the_reason(field: str, value: object,
                                                       says: str) -> None:
    with pytest.raises(ValidationError, match=says):
        Settings(database_url="sqlite://", **{field: value})  # type: ignore[arg-type]
