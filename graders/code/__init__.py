"""The `code` grader: runs a student's function in the sandbox on rubric-defined inputs and
decides every check, and the bug's name, in the trusted process.

A question's battery (rubrics/<slug>/<question>.yaml: the function, inputs from fixed seeds, a
reference and known-bug variants in a Python module beside it) runs once for all of the
question's items. Each item names one check; a check earns its points when it passes on every
input it looks at (or in proportion, with `credit: per_input`). A check whose every input crashed
is `submission_error` with the student's exception and line; the others keep their credit.

Checks that survive a crash (`salvage: true`, used by b4.causal): when the function raises
before returning, the child reports the numeric arrays in the function's own frame at the crash,
and the parent may decide a property check on the one named like the weights (`weights`, `attn`,
...). The masking logic ran and produced those weights, so "no weight on a future position" is
observable even though `return output, weights` failed; the checks that need the return value
(interface, weights vs. reference, output) stay `submission_error`. Such credit is reported with
the variable it was read from and confidence 0.8.
"""

from graders.code.grader import CodeGrader, shared_sandbox

GRADER = CodeGrader()

__all__ = ["GRADER", "CodeGrader", "shared_sandbox"]
