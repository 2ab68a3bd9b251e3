"""Numeric answers: values read from messy text, compared with per-item tolerance."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graders.lazy import load

if TYPE_CHECKING:
    from graders.numeric.config import NumericConfig
    from graders.numeric.grader import GRADER, NumericGrader

# Imported on first use: the kind's config module (its VERSION and config model, read by
# rubrics and the cache keys) is imported without the grader (graders.lazy).
_WHERE = {
    "NumericConfig": "graders.numeric.config",
    "NumericGrader": "graders.numeric.grader",
    "GRADER": "graders.numeric.grader",
}

__all__ = ["GRADER", "NumericConfig", "NumericGrader"]


def __getattr__(name: str) -> Any:
    return load(globals(), _WHERE, name)
