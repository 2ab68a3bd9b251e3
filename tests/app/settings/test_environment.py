"""Settings read GRADEFORMER_* variables themselves (app/settings.py, without pydantic-settings):
whatever the operator sets, they must read what pydantic-settings' BaseSettings reads with the
same fields and configuration (the prefix, names in any case, constructor values first)."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError, create_model

from app.settings import Settings

pydantic_settings = pytest.importorskip(
    "pydantic_settings", reason="the reference reader, pydantic-settings, is not installed"
)

Reference: Any = create_model(  # the same fields, read by BaseSettings
    "Reference",
    __base__=pydantic_settings.BaseSettings,
    __config__=None,
    **{name: (field.annotation, field) for name, field in Settings.model_fields.items()},
)
Reference.model_config.update(env_prefix="GRADEFORMER_", extra="ignore")

# Text an operator might write for a setting: valid values of every field's type and invalid ones.
VALUES = st.sampled_from(
    [
        "0",
        "1",
        "2",
        "-3",
        "2.5",
        "1e3",
        "true",
        "False",
        "yes",
        "off",
        "",
        " 7 ",
        "local",
        "celery",
        "on",
        "always",
        "sqlite:///x.db",
        "/tmp/somewhere",
        "null",
        "None",
        "abc",
    ]
)
# (the sandbox layer lists have a validator of their own, tests/app/settings/test_sandbox.py)
NAMES = st.sampled_from(sorted(n for n in Settings.model_fields if not n.endswith("_layers")))
CASES = st.sampled_from([str.upper, str.lower, str.title])


def _read(cls: Any, given: dict[str, str]) -> Any:
    try:
        return cls(**given).model_dump()
    except ValidationError as exc:
        return sorted((tuple(e["loc"]), e["type"]) for e in exc.errors())


@settings(max_examples=150, deadline=None)
@given(
    st.dictionaries(st.tuples(NAMES, CASES), VALUES, max_size=6),
    st.dictionaries(NAMES, VALUES, max_size=2),
    st.sampled_from(["GRADEFORMER", "gradeformer", "GradeFormer", "OTHER"]),
)
def test_the_environment_is_read_as_pydantic_settings_reads_it(
    variables: dict[tuple[str, Any], str], given_values: dict[str, str], prefix: str
) -> None:
    environ = {f"{prefix}_{case(name)}": value for (name, case), value in variables.items()}
    saved = dict(os.environ)
    try:
        for name in [n for n in os.environ if n.lower().startswith("gradeformer_")]:
            del os.environ[name]
        os.environ.update(environ)
        assert _read(Settings, given_values) == _read(Reference, given_values)
    finally:
        os.environ.clear()
        os.environ.update(saved)
