"""Code that imports a library the sandbox does not have (SciPy, PyTorch, ...).

The sandbox holds the standard library and NumPy only. A correct answer that calls
`scipy.special.softmax` or `logsumexp` fails there with a NameError or ModuleNotFoundError that
is the grading environment's limit, not the student's bug: a confident 0 would be wrong. Such
an answer is still run; every item it does not earn in full goes to review with the machine's
points as a suggestion and the reason, and an item it earns in full stays graded (the import
was not needed).
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterable

from graders.results import Evidence, ItemResult, Status

AVAILABLE = frozenset(sys.stdlib_module_names) | {"numpy", "__future__"}
KIND = "library"  # the evidence that names a library the sandbox lacks
REVIEW_CONFIDENCE = 0.5


def unavailable_imports(source: str) -> list[str]:
    """The top-level packages the program imports, anywhere in it, that the sandbox lacks."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found: dict[str, None] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if top not in AVAILABLE:
                found[top] = None
    return list(found)


def library_evidence(libraries: Iterable[str]) -> list[Evidence]:
    return [Evidence(kind=KIND, text=name, note="imported, but not installed in the sandbox "
                     "(the standard library and NumPy only)") for name in libraries]


def review_outside_libraries(result: ItemResult) -> ItemResult:
    """The result as it stands when it needs none of the missing libraries' credit (full
    points); otherwise sent to review, its points the suggestion."""
    libraries = [e.text for e in result.evidence if e.kind == KIND]
    if not libraries or result.points >= result.max_points or result.status in (
            Status.GRADER_ERROR, Status.PENDING, Status.MISSING):
        return result
    names = ", ".join(f"`{n}`" for n in libraries)
    staff = (f"Needs review: the code relies on {names}, which the grader's sandbox does not "
             "have (it has the standard library and NumPy), so a failure may be the "
             f"environment's, not the student's; the machine suggests {result.points} of "
             f"{result.max_points} points.")
    student = (f"Your code relies on {names}, which the grader cannot run; a person will "
               "check this item.")
    return result.model_copy(update={
        "status": Status.NEEDS_REVIEW,
        "confidence": min(result.confidence, REVIEW_CONFIDENCE),
        "feedback": f"{result.feedback} {staff}".strip(),
        "student_feedback": f"{result.student_feedback or ''} {student}".strip()})
