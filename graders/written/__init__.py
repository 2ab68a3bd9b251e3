"""The `written` grader kind: prose and short derivations graded by concepts."""

from graders.written.config import Contradiction, Element, Exemplar, PartialCredit, WrittenConfig
from graders.written.grader import WrittenGrader, shared_embedder

GRADER = WrittenGrader()

__all__ = [
    "GRADER",
    "Contradiction",
    "Element",
    "Exemplar",
    "PartialCredit",
    "WrittenConfig",
    "WrittenGrader",
    "shared_embedder",
]
