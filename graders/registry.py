"""Grader kinds: the interface every grader implements and the registry that finds them."""

from __future__ import annotations

import importlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar

from pydantic import BaseModel

if TYPE_CHECKING:
    from graders.context import GradingContext
    from graders.documents.model import LocatedAnswer
    from graders.results import ItemResult
    from graders.rubric import RubricItem

# Every grader kind a rubric may name, and the module that implements it. A kind whose module
# does not exist yet is known but unbuilt: its items are reported as `pending`, never scored.
BUILTIN_KINDS: dict[str, str] = {
    "numeric": "graders.numeric",
    "symbolic": "graders.symbolic",
    "code": "graders.code",
    "written": "graders.written",
}
# Each built-in kind's config module: its grader's `VERSION` and config model, read without
# importing the grader (a rubric's item configs and the cache keys need only these; a
# points-only regrade never runs the code or written grader).
KIND_FACTS: dict[str, tuple[str, str]] = {
    "numeric": ("graders.numeric.config", "NumericConfig"),
    "symbolic": ("graders.symbolic.config", "SymbolicConfig"),
    "code": ("graders.code.config", "CodeCheckConfig"),
    "written": ("graders.written.config", "WrittenConfig"),
}


class Grader(ABC):
    """One grader kind. Stateless: per-process resources come through the context."""

    kind: ClassVar[str]
    version: ClassVar[str]
    config_model: ClassVar[type[BaseModel]]

    def grade_items(
        self,
        items: Sequence[RubricItem],
        answer: LocatedAnswer,
        context: GradingContext,
    ) -> list[ItemResult]:
        """Grade all of one question's items of this kind (a code battery runs once for all)."""
        return [self.grade(item, answer, context) for item in items]

    @abstractmethod
    def grade(self, item: RubricItem, answer: LocatedAnswer, context: GradingContext) -> ItemResult:
        """Grade one item. A wrong answer is data; raise only for a bug of ours."""


_registry: dict[str, Grader] = {}
_loaded = False
_tried: set[str] = set()  # built-in kinds whose module was looked for


def register(grader: Grader) -> Grader:
    if grader.kind not in BUILTIN_KINDS and grader.kind in _registry:
        raise ValueError(f"grader kind {grader.kind!r} is registered twice")
    _registry[grader.kind] = grader
    return grader


def _load_kind(kind: str) -> None:
    """Import one built-in kind's module (once): a rubric of written items only does not pay
    for importing the code and numeric graders (start-up of `grade-table`)."""
    module_name = BUILTIN_KINDS.get(kind)
    if module_name is None or kind in _tried:
        return
    _tried.add(kind)
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name == module_name:
            return  # known kind, not built yet
        raise
    grader = getattr(module, "GRADER", None)
    if isinstance(grader, Grader) and grader.kind == kind:
        register(grader)


def _load_builtin() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for kind in BUILTIN_KINDS:
        _load_kind(kind)


def get_grader(kind: str) -> Grader | None:
    if kind in BUILTIN_KINDS:
        _load_kind(kind)
    else:
        _load_builtin()
    return _registry.get(kind)


def is_known_kind(kind: str) -> bool:
    _load_builtin()
    return kind in BUILTIN_KINDS or kind in _registry


def _facts(kind: str) -> tuple[str, type[BaseModel]] | None:
    """(version, config model) of a built-in kind from its config module, unless a grader of
    that kind is registered already (its own then answer)."""
    facts = KIND_FACTS.get(kind)
    if facts is None or kind in _registry or BUILTIN_KINDS.get(kind) is None:
        return None
    module = importlib.import_module(facts[0])
    return module.VERSION, getattr(module, facts[1])


def grader_version(kind: str) -> str | None:
    """The version of a kind's grader (it names the grader's code in the cache keys); None for
    a kind without a grader."""
    facts = _facts(kind)
    if facts is not None:
        return facts[0]
    grader = get_grader(kind)
    return None if grader is None else grader.version


def config_model_for(kind: str) -> type[BaseModel] | None:
    facts = _facts(kind)
    if facts is not None:
        return facts[1]
    grader = get_grader(kind)
    return None if grader is None else grader.config_model


def registered_kinds() -> list[str]:
    _load_builtin()
    return sorted(_registry)
