"""Numeric answers: values read from messy text, compared with per-item tolerance."""

from graders.numeric.config import NumericConfig
from graders.numeric.grader import NumericGrader

GRADER = NumericGrader()

__all__ = ["GRADER", "NumericConfig", "NumericGrader"]
