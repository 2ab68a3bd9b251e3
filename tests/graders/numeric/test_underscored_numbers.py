"""Numbers with underscores as students write them: Markdown emphasis by underscores around a
value (`__589,824__`, `_0.25_`, a whole emphasised statement `__d_head = 64__`), common in
Markdown and notebook cells, and Python's digit groups (`1_769_472`, PEP 515) in code-like
answers. Before, the emphasis was read as a subscript that ate the first digit (`__589,824__` ->
89,824, `__64__` -> 4) and `10_000` read as 0; a subscript after a name (`d_k = 64`, `W_{Q}`)
still is one."""

from __future__ import annotations

from decimal import Decimal
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.numeric.extract import extract

PROPERTY = settings(max_examples=120, deadline=None, database=None, derandomize=True)
EMPHASIS = st.sampled_from(["_", "__"])
LABELS = st.sampled_from(["d_head = {v}", "per matrix: {v}", "The total is {v}.",
                          "so W_Q has {v} weights", "answer: {v}"])


def values(text: str) -> list[Fraction]:
    return [c.value for c in extract(text).candidates if not c.is_vector]  # type: ignore[misc]


def written(value: int | Decimal, grouping: str) -> str:
    if isinstance(value, Decimal):
        return str(value)
    return f"{value:,}" if grouping == "," else f"{value:_}" if grouping == "_" else str(value)


@PROPERTY
@given(st.one_of(st.integers(-10**9, 10**9), st.decimals("-999.99", "999.99", places=2)),
       EMPHASIS, st.sampled_from([",", "_", ""]), LABELS)
def test_a_value_emphasised_with_underscores_is_read_whole(value, marks, grouping, label):
    text = label.format(v=f"{marks}{written(value, grouping)}{marks}")
    assert values(text) == [Fraction(value)], text


@PROPERTY
@given(st.integers(0, 10**9), EMPHASIS, st.sampled_from(["d_head", "d_k", "total", "N_params"]))
def test_an_emphasised_statement_keeps_its_value_and_its_names(value, marks, name):
    text = f"{marks}{name} = {value:,}{marks}"
    assert values(text) == [value], text


@PROPERTY
@given(st.integers(10**3, 10**12))
def test_python_digit_groups_are_thousands_separators(value):
    assert values(f"n_params = {value:_}") == [value]
    assert values(f"n_params = {value:_}  # {value:,} weights") == [value, value]


@PROPERTY
@given(st.sampled_from(["d_k", "W_{Q}", "x_1", "h_{t-1}"]), st.integers(2, 4096))
def test_a_subscript_after_a_name_is_still_one(name, value):
    assert values(f"{name} = {value}") == [value]
    assert values(f"{name} = _{value}_") == [value]
