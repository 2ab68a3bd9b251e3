"""The `code` grader: runs a student's function in the sandbox on inputs drawn per submission
and decides every check, and the bug's name, in the trusted process.

A question's battery (a YAML file beside the rubric: the function, its parameters and how each
input is drawn, the reference's named outputs, the checks, the interface adaptations the rubric
accepts and their cost, with the reference, known-bug variants and the instructor's own checks
in a Python module beside it) runs once for all of the question's items, in a child of its own.
A battery for any NumPy function is graded by `general` (calls planned over the student's
signature by `calling`, checks decided by `judging`); one that asks for a class's method
(`LayerNorm.forward`) has the class and method found in the source by `classes`, and the child
constructs the class before each call (or keeps the instance the call before built). An
attention battery (checks
`attention: ...`, `attention_form`) is called as asked and, when that does not give
(output, weights), in the forms
students write (`forms`): output only, the pair reversed, a required mask argument, batched
inputs. Each item names one check; a check earns its points when it passes on every input it
looks at (or in proportion, with `credit: per_input`), times the rubric's share for any
adaptation it relied on. A check whose every input crashed is `submission_error` with the
student's exception and line; the others keep their credit.

Checks that survive a crash (`salvage: true`, used by b4.causal): when the function raises
before returning, the child reports the numeric arrays in the function's own frame at the crash,
and the parent may decide the check on the one named like the weights, only when those weights
are a softmax of the case's scores. Such credit says so and has confidence 0.8.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graders.lazy import load

if TYPE_CHECKING:
    from graders.code.grader import GRADER, CodeGrader, shared_sandbox

# Imported on first use: the kind's config module (its VERSION and config model, read by
# rubrics and the cache keys) is imported without the grader (graders.lazy).
_WHERE = {
    "CodeGrader": "graders.code.grader",
    "shared_sandbox": "graders.code.grader",
    "GRADER": "graders.code.grader",
}

__all__ = ["GRADER", "CodeGrader", "shared_sandbox"]


def __getattr__(name: str) -> Any:
    return load(globals(), _WHERE, name)
