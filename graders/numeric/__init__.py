"""Numeric answers: values read from messy text, compared with per-item tolerance."""

# Imported with the package, unlike the other kinds: a points-only regrade re-scores numeric
# items in its forked workers, which inherit the grader rather than each import it again.
from graders.numeric.config import NumericConfig
from graders.numeric.grader import GRADER, NumericGrader

__all__ = ["GRADER", "NumericConfig", "NumericGrader"]
