"""Symbolic answers: expressions parsed and compared in a sandboxed worker, never evaluated here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graders.lazy import load

if TYPE_CHECKING:
    from graders.symbolic.config import SymbolicConfig
    from graders.symbolic.grader import GRADER, SymbolicGrader
    from graders.symbolic.pool import SymbolicPool

# Imported on first use: the kind's config module (its VERSION and config model, read by
# rubrics and the cache keys) is imported without the grader (graders.lazy).
_WHERE = {
    "SymbolicConfig": "graders.symbolic.config",
    "SymbolicGrader": "graders.symbolic.grader",
    "SymbolicPool": "graders.symbolic.pool",
    "GRADER": "graders.symbolic.grader",
}

__all__ = ["GRADER", "SymbolicConfig", "SymbolicGrader", "SymbolicPool"]


def __getattr__(name: str) -> Any:
    return load(globals(), _WHERE, name)
