"""Scalars both ways through the harness: int and float arguments arrive as Python numbers (as
the question's caller would pass them), arguments may go by name, and scalar, 0-d, bool and
float16 results come back as validated arrays of their own dtype."""

from __future__ import annotations

import numpy as np
import pytest

from graders.sandbox import Call, Job, Sandbox

SOURCE = """
import numpy as np

def kinds(a, b, c=None, *, d=None):
    return (type(a).__name__, type(b).__name__, type(c).__name__, type(d).__name__)

def sentinel(position, d_model):
    return -1

def echo(value):
    return value
"""


def test_scalar_arguments_arrive_as_python_numbers_and_by_name(sandbox: Sandbox) -> None:
    arrays = (np.asarray(3), np.asarray(2.5), np.zeros((2, 2)), np.asarray(True))
    calls = (Call("kinds", (0, 1), (("d", 3),), items=(0, 1, 3)),
             Call("kinds", (2, 0), (("c", 1),), items=(1,)))
    outcome = sandbox.run(Job(SOURCE + "\nprint(kinds(1, 2.0))\n", arrays, calls))
    assert outcome.status == "completed"
    first, second = outcome.calls
    assert first is not None and first.ok and second is not None and second.ok
    # Strings are not carried back: the types are read from what the child printed instead.
    assert "('int', 'float', 'NoneType', 'NoneType')" in outcome.output
    assert first.value is not None and first.value.kind == "seq"
    assert [item.type_name for item in first.value.items] == ["str"] * 4


def test_scalar_and_small_results_come_back_with_their_dtype(sandbox: Sandbox) -> None:
    values = (np.asarray(-1), np.float16(0.5), np.zeros((0, 8), dtype=np.float16),
              np.ones((2, 3), dtype=np.float16), np.asarray(7.25), np.asarray(False))
    arrays = tuple(np.asarray(v) for v in values)
    calls = (Call("sentinel", (0, 0), items=(0,)),
             *(Call("echo", (i,)) for i in range(1, len(arrays))),
             Call("echo", (1,), items=(1,)))
    outcome = sandbox.run(Job(SOURCE, arrays, calls))
    assert outcome.status == "completed"
    found = [c.value for c in outcome.calls if c is not None and c.ok and c.value is not None]
    assert len(found) == len(calls)
    sentinel = found[0].array
    assert sentinel is not None and sentinel.shape == () and int(sentinel) == -1
    for value, sent in zip(found[1:-1], arrays[1:], strict=True):
        assert value.array is not None and value.array.dtype == sent.dtype
        assert value.array.shape == sent.shape and np.array_equal(value.array, sent)
    as_item = found[-1].array  # np.float16(0.5) passed as a Python float, returned as float64
    assert as_item is not None and as_item.shape == () and as_item.dtype == np.float64


def test_a_result_returned_as_nested_lists_comes_back_as_its_array(sandbox: Sandbox) -> None:
    source = SOURCE + ("\ndef listed(x):\n    return x.tolist()\n"
                       "\ndef ragged(x):\n    return [[1.0, 2.0], [3.0]]\n"
                       "\ndef pair(x):\n    return [x, x]\n")
    x = np.arange(60.0).reshape(12, 5)
    calls = (Call("listed", (0,)), Call("ragged", (0,)), Call("pair", (0,)))
    outcome = sandbox.run(Job(source, (x,), calls))
    listed, ragged, pair = (c.value for c in outcome.calls if c is not None)
    assert listed is not None and listed.kind == "array" and listed.array is not None
    assert np.array_equal(listed.array, x)  # every row, beyond a sequence's 8 items
    assert ragged is not None and ragged.kind == "seq" and ragged.length == 2
    assert pair is not None and pair.kind == "seq" and len(pair.items) == 2  # arrays stay apart


@pytest.mark.parametrize("rows", [1, 2, 5])
def test_several_outputs_returned_as_nested_lists_stay_apart(sandbox: Sandbox, rows: int) -> None:
    """`return K.tolist(), V.tolist()`: two outputs, each the array its lists spell, however
    alike their shapes (a tuple of equal lists is no 3-d array); one tuple of numbers is still
    the vector it spells."""
    source = SOURCE + ("\ndef two(x):\n    return x.tolist(), (2 * x).tolist()\n"
                       "\ndef numbers(x):\n    return (1.0, 2.0, 3.0)\n")
    x = np.arange(rows * 3.0).reshape(rows, 3)
    outcome = sandbox.run(Job(source, (x,), (Call("two", (0,)), Call("numbers", (0,)))))
    two, numbers = (c.value for c in outcome.calls if c is not None)
    assert two is not None and two.kind == "seq" and len(two.items) == 2, two
    first, second = (item.array for item in two.items)
    assert first is not None and np.array_equal(first, x)
    assert second is not None and np.array_equal(second, 2 * x)
    assert numbers is not None and numbers.kind == "array" and numbers.array is not None
    assert numbers.array.shape == (3,)
