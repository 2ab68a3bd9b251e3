"""Package attributes imported on first use (PEP 562), not with the package.

A grader kind's package names its grader and its config model; importing the package for its
config module (a rubric's item configs, the cache keys' grader version) must not import the
grader and what it needs (NumPy, the sandbox, the embedding model): a points-only regrade
never runs those graders.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import Any


def load(namespace: dict[str, Any], where: Mapping[str, str], name: str) -> Any:
    """`name` from its module in `where`, kept in the package's `namespace` once imported."""
    module = where.get(name)
    if module is None:
        raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
    value = getattr(import_module(module), name)
    namespace[name] = value
    return value
