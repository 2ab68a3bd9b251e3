"""The student's code runs as a module of its own, registered as `submission` in the child's
sys.modules, so the libraries that look up a class's module by name work as in a script:
dataclasses, typing's hints, pickling its classes. Its annotations are postponed (the harness
compiles it under `from __future__ import annotations`), so `@dataclass` reads them as strings
and looks the module up: before, every `@dataclass` with a field failed at import in the
sandbox. Postponed, an annotation naming what failed to import (`torch.Tensor`) does not stop
the definition."""

from __future__ import annotations

import numpy as np
import pytest

from graders.sandbox import Call, Job, Sandbox

BODY = """
import dataclasses, pickle, typing
import numpy as np

@dataclasses.dataclass(frozen=True)
class Config:
    d_k: int = 4
    scale: float = 0.5

class Pair(typing.NamedTuple):
    first: int
    second: int

def readings():
    config = Config()
    hints = typing.get_type_hints(Config)
    again = pickle.loads(pickle.dumps(config))
    return np.array([config.d_k, hints["d_k"] is int, again == config,
                     Pair(1, 2).second, isinstance(Config.__annotations__["d_k"], str)],
                    dtype=np.float64)
"""


@pytest.mark.parametrize("future", [False, True])
def test_dataclasses_typing_and_pickle_see_the_student_s_module(
    sandbox: Sandbox, future: bool
) -> None:
    source = ("from __future__ import annotations\n" if future else "") + BODY
    outcome = sandbox.run(Job(source, (), (Call("readings", ()),)))
    assert outcome.module is not None and not outcome.module.errors, outcome.module
    call = outcome.calls[0]
    assert call is not None and call.ok and call.value is not None, call
    assert call.value.array is not None
    assert call.value.array.tolist() == [4.0, 1.0, 1.0, 2.0, 1.0]


def test_an_annotation_naming_a_failed_import_does_not_stop_the_definition(
    sandbox: Sandbox,
) -> None:
    source = ("import numpy as np\nimport torch\n\n"
              "def scale(x: torch.Tensor) -> torch.Tensor:\n    return x * 2\n")
    outcome = sandbox.run(Job(source, (np.ones(2),), (Call("scale", (0,)),)))
    assert outcome.module is not None and [e.type for _, e in outcome.module.errors] == [
        "ModuleNotFoundError"]
    call = outcome.calls[0]
    assert call is not None and call.ok and call.value is not None, call
