"""The `written` grader kind: prose and short derivations graded by concepts."""

from graders.written.config import Contradiction, Element, Exemplar, PartialCredit, WrittenConfig
from graders.written.grader import WrittenGrader, shared_embedder
from graders.written.scoring import SimilarityModel
from graders.written.settings import WrittenSettings

GRADER = WrittenGrader()

__all__ = [
    "GRADER",
    "Contradiction",
    "Element",
    "Exemplar",
    "PartialCredit",
    "SimilarityModel",
    "WrittenConfig",
    "WrittenGrader",
    "WrittenSettings",
    "shared_embedder",
]
