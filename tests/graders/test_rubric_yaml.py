"""Rubric YAML is read by libyaml's parser when PyYAML has it: the same data as the pure-Python
safe loader, the same refusals (graders/rubric.py)."""

from __future__ import annotations

import datetime
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.rubric import RubricError, _safe_load, parse_rubric

scalars = (st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
           | st.text(max_size=30))
documents = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                         | st.dictionaries(st.text(max_size=10), inner, max_size=4),
                         max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(documents, st.sampled_from([None, False, True]))
def test_the_fast_loader_reads_what_the_safe_loader_reads(data: Any, flow: bool | None) -> None:
    text = yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True)
    assert _safe_load(text.encode()) == yaml.load(text, Loader=yaml.SafeLoader)


def _plain(value: Any) -> bool:
    if isinstance(value, dict):
        return all(_plain(k) and _plain(v) for k, v in value.items())
    if isinstance(value, list | set):
        return all(_plain(v) for v in value)
    return isinstance(value, PLAIN)


PLAIN = (str, int, float, bool, bytes, type(None), datetime.date)


# libyaml is more lenient than the pure-Python reader on some malformed text (a tab where the
# spec forbids one, non-printable characters): such a rubric may load where it was refused.
# Both build plain data only, with the same safe constructor.
@settings(max_examples=500, deadline=None)
@given(st.text(max_size=60) | st.text(alphabet=":-[]{}!&*#|>'\"%@`\n \t?,.01ab", max_size=40))
def test_any_text_loads_as_plain_data_or_is_refused(text: str) -> None:
    try:
        found = _safe_load(text.encode())
    except yaml.YAMLError:
        return
    assert _plain(found)


@pytest.mark.parametrize("text", [
    "!!python/object/apply:os.system ['true']",
    "slug: x\ntitle: t\nquestions: !!python/name:os.system\n",
])
def test_python_tags_are_refused(text: str) -> None:
    with pytest.raises(RubricError, match="not valid YAML"):
        parse_rubric(text)
