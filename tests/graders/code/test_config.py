"""Rubric-side validation of code items: bad batteries fail at `rubric validate` time."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from graders.code.battery import BatteryError, load_battery
from graders.code.config import CodeCheckConfig, resolve_battery


def test_the_bundled_batteries_load_with_finite_references() -> None:
    for name in ("transformer-basics/b3.yaml", "transformer-basics/b4.yaml"):
        battery = load_battery(resolve_battery(name)).instance(12345)
        assert len(battery.cases) >= 4 and battery.variants
        shapes = {(c.spec.n, c.spec.m, c.spec.d_k, c.spec.d_v) for c in battery.cases}
        assert any(n == 1 for n, *_ in shapes)
        assert any(dk != dv for *_, dk, dv in shapes)


@pytest.mark.parametrize("battery", ["../pyproject.toml", "/etc/passwd", "nope.yaml"])
def test_batteries_must_exist_inside_the_rubrics_directory(battery: str) -> None:
    with pytest.raises(ValidationError):
        CodeCheckConfig(battery=battery, check="weights")


def test_unknown_checks_and_keys_are_rejected() -> None:
    with pytest.raises(ValidationError):
        CodeCheckConfig(battery="transformer-basics/b3.yaml", check="vibes")  # type: ignore[arg-type]
    with pytest.raises(ValidationError):
        CodeCheckConfig.model_validate(
            {"battery": "transformer-basics/b3.yaml", "check": "weights", "tolerance": 1})


def test_a_broken_battery_is_a_battery_error(tmp_path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("function: f\nmodule: missing.py\nreference: f\ncases: []\n")
    with pytest.raises(BatteryError):
        load_battery(bad)
