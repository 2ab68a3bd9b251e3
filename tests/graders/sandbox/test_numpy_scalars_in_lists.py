"""A list of numbers built by appending, some of them NumPy's scalars (`lrs.append(peak *
np.sqrt(w / s))` beside `lrs.append(peak * s / w)`), is the vector it spells (the sixth trial
homework's learning-rate schedule). Before, only exact Python numbers made a list an array: such
a list travelled as a sequence of separate results, and its function was graded through an
adapted interface ("returns more than the asked output"). A subclass of a NumPy scalar is still
not read as a number."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.sandbox import Call, Job, Sandbox

KINDS = ["float", "np.float64", "np.float32", "int", "np.int64"]


@settings(max_examples=12, deadline=None, database=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.tuples(st.sampled_from(KINDS), st.integers(0, 9)), min_size=2, max_size=9))
def test_a_list_mixing_python_and_numpy_numbers_is_its_array(
        sandbox: Sandbox, items: list[tuple[str, int]]) -> None:
    body = ", ".join(f"{kind}({value})" for kind, value in items)
    source = f"import numpy as np\n\ndef f(x):\n    out = []\n    for v in [{body}]:\n" \
             "        out.append(v)\n    return out\n"
    outcome = sandbox.run(Job(source, (np.zeros(1),), (Call("f", (0,)),)))
    [call] = outcome.calls
    assert call is not None and call.ok and call.value is not None, outcome
    assert call.value.kind == "array", (source, call.value)
    assert call.value.array is not None
    assert call.value.array.tolist() == [float(v) for _, v in items]


def test_a_subclass_of_a_numpy_scalar_is_no_number(sandbox: Sandbox) -> None:
    source = ("import numpy as np\n\nclass F(np.float64):\n    pass\n\n"
              "def f(x):\n    return [F(1.0), F(2.0)]\n")
    outcome = sandbox.run(Job(source, (np.zeros(1),), (Call("f", (0,)),)))
    [call] = outcome.calls
    assert call is not None and call.ok and call.value is not None
    assert call.value.kind == "seq"


def test_a_tuple_of_numpy_scalars_is_still_several_outputs(sandbox: Sandbox) -> None:
    # `return mean, std` (NumPy scalars): two outputs, as before
    source = "import numpy as np\n\ndef f(x):\n    return np.mean(x), np.std(x)\n"
    outcome = sandbox.run(Job(source, (np.arange(4.0),), (Call("f", (0,)),)))
    [call] = outcome.calls
    assert call is not None and call.ok and call.value is not None
    assert call.value.kind == "seq" and len(call.value.items) == 2
