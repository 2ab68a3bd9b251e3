"""Symbolic answers: expressions parsed and compared in a sandboxed worker, never evaluated here."""

from graders.symbolic.config import SymbolicConfig
from graders.symbolic.grader import SymbolicGrader
from graders.symbolic.pool import SymbolicPool

GRADER = SymbolicGrader()

__all__ = ["GRADER", "SymbolicConfig", "SymbolicGrader", "SymbolicPool"]
