"""The grader kinds a rubric may name: one line each, the module of the kind's strategy.

A kind's strategy (`graders.kind.Kind`, in `graders/<kind>/kind.py`) answers everything asked
about its items; its grader is imported only when an item is graded. A kind whose strategy
module does not exist yet is known but unbuilt: its items are reported as `pending`, never
scored. Modules are imported by name on first use, so a rubric of written items only does not
pay for importing the code and numeric kinds.
"""

from __future__ import annotations

import threading
from importlib import import_module
from typing import ClassVar

from pydantic import BaseModel

from graders.kind import Grader, Kind

KINDS: dict[str, str] = {
    "numeric": "graders.numeric.kind",
    "symbolic": "graders.symbolic.kind",
    "code": "graders.code.kind",
    "written": "graders.written.kind",
    "choice": "graders.choice.kind",
}

_kinds: dict[str, Kind | None] = {}
# Graders registered at run time (tests, plugins) under a name of their own.
_registered: dict[str, Grader] = {}
_lock = threading.Lock()


def register(grader: Grader) -> Grader:
    """Register a grader of a kind with no strategy module (its strategy is the defaults)."""
    with _lock:
        if grader.kind in KINDS or grader.kind in _registered:
            raise ValueError(f"grader kind {grader.kind!r} is registered twice")
        _registered[grader.kind] = grader
    return grader


def get_kind(name: str) -> Kind | None:
    """The strategy of kind `name`; None for an unknown or unbuilt kind."""
    with _lock:
        if name in _kinds:
            return _kinds[name]
    module_name = KINDS.get(name)
    found: Kind | None = None
    if module_name is not None:
        try:
            module = import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name is None or not (module_name == exc.name
                                        or module_name.startswith(exc.name + ".")):
                raise
            module = None  # known kind, not built yet
        strategy = getattr(module, "KIND", None)
        if isinstance(strategy, Kind) and strategy.name == name:
            found = strategy
    with _lock:
        _kinds[name] = found
    return found


class _Plain(Kind):
    """What is assumed of a kind without a strategy (unbuilt, or a grader registered at run
    time): the defaults of `Kind`."""

    name: ClassVar[str] = ""


_PLAIN = _Plain()


def kind_of(name: str) -> Kind:
    """The strategy of kind `name`, or the defaults for a kind without one."""
    return get_kind(name) or _PLAIN


def get_grader(kind: str) -> Grader | None:
    strategy = get_kind(kind)
    if strategy is not None:
        return strategy.grader()
    return _registered.get(kind)


def is_known_kind(kind: str) -> bool:
    return kind in KINDS or kind in _registered


def grader_version(kind: str) -> str | None:
    """The version of a kind's grader (it names the grader's code in the cache keys); None for
    a kind without a grader."""
    strategy = get_kind(kind)
    if strategy is not None:
        return strategy.version
    grader = _registered.get(kind)
    return None if grader is None else grader.version


def config_model_for(kind: str) -> type[BaseModel] | None:
    strategy = get_kind(kind)
    if strategy is not None:
        return strategy.config_model
    grader = _registered.get(kind)
    return None if grader is None else grader.config_model


def registered_kinds() -> list[str]:
    """The kinds whose items can be graded here."""
    return sorted({*(k for k in KINDS if get_kind(k) is not None), *_registered})
