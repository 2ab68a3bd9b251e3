"""A method's call in the sandbox (`Call.init`): the class constructed with its arguments, the
method called on it; `again` keeps the instance the call before built; a generator argument
arrives as `np.random.default_rng(seed)`; a constructor's exception is reported as such."""

from __future__ import annotations

import numpy as np

from graders.sandbox import Call, Construct, Job, Sandbox

COUNTER = """
import numpy as np

class Counter:
    def __init__(self, start, rng=None):
        if start < 0:
            raise ValueError("negative start")
        self.count = start + (0 if rng is None else int(rng.integers(1000)))

    def step(self, by=1):
        self.count += by
        return np.array([self.count])
"""


def _counts(sandbox: Sandbox, calls: tuple[Call, ...], arrays: tuple[np.ndarray, ...]
            ) -> list[object]:
    outcome = sandbox.run(Job(source=COUNTER, arrays=arrays, calls=calls))
    assert outcome.status == "completed", outcome
    found: list[object] = []
    for call in outcome.calls:
        assert call is not None
        if call.ok and call.value is not None and call.value.array is not None:
            found.append(int(call.value.array[0]))
        else:
            error = call.error
            assert error is not None
            said = error.message if error.type == "NameError" else None
            found.append(("raised", error.type, call.in_init, said))
    return found


def test_again_keeps_the_instance_and_a_fresh_construct_starts_over(sandbox: Sandbox) -> None:
    arrays = (np.asarray(10), np.asarray(2))
    fresh = Construct("Counter", (0,))
    again = Construct("Counter", (0,), again=True)
    calls = (Call("step", (), items=(0, 1), init=fresh),
             Call("step", (1,), items=(0, 1), init=again),
             Call("step", (), items=(0, 1), init=again),
             Call("step", (), items=(0, 1), init=fresh))
    assert _counts(sandbox, calls, arrays) == [11, 13, 14, 11]


def test_a_generator_argument_is_built_from_its_seed(sandbox: Sandbox) -> None:
    seed = 12345
    expected = 10 + int(np.random.default_rng(seed).integers(1000)) + 1
    init = Construct("Counter", (0,), (("rng", 1),))
    call = Call("step", (), items=(0, 1), init=init, generators=(1,))
    assert _counts(sandbox, (call, call), (np.asarray(10), np.asarray(seed))) == [expected] * 2


def test_a_constructor_that_raises_is_reported_as_the_constructors(sandbox: Sandbox) -> None:
    arrays = (np.asarray(-1), np.asarray(3))
    calls = (Call("step", (), items=(0,), init=Construct("Counter", (0,))),
             Call("step", (), items=(0,), init=Construct("Counter", (0,), again=True)),
             Call("step", (), items=(1,), init=Construct("Counter", (1,))),
             Call("step", (), init=Construct("Missing")),
             Call("stride", (), items=(1,), init=Construct("Counter", (1,))))
    found = _counts(sandbox, calls, arrays)
    # after a failed construction, `again` constructs anew (and fails the same way)
    refused = ("raised", "ValueError", True, None)
    assert found[:3] == [refused, refused, 4]
    assert found[3] == ("raised", "NameError", False, "no class named 'Missing'")
    # the method missing, not the constructor failing
    assert found[4] == ("raised", "AttributeError", False, None)
