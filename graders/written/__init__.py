"""The `written` grader kind: prose and short derivations graded by concepts."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graders.lazy import load

if TYPE_CHECKING:
    from graders.written.config import (
        Contradiction,
        Element,
        Exemplar,
        PartialCredit,
        WrittenConfig,
    )
    from graders.written.grader import GRADER, WrittenGrader, shared_embedder
    from graders.written.settings import WrittenSettings
    from graders.written.similarity_model import SimilarityModel

# Imported on first use: the kind's config module (its VERSION and config model, read by
# rubrics and the cache keys) is imported without the grader (graders.lazy).
_WHERE = {
    "Contradiction": "graders.written.config",
    "Element": "graders.written.config",
    "Exemplar": "graders.written.config",
    "PartialCredit": "graders.written.config",
    "WrittenConfig": "graders.written.config",
    "WrittenGrader": "graders.written.grader",
    "shared_embedder": "graders.written.grader",
    "SimilarityModel": "graders.written.similarity_model",
    "WrittenSettings": "graders.written.settings",
    "GRADER": "graders.written.grader",
}

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


def __getattr__(name: str) -> Any:
    return load(globals(), _WHERE, name)
