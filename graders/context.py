"""What a grader may use besides the item and the answer."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from graders.documents.model import ParsedSubmission
from graders.options import GradingOptions
from graders.results import ItemResult
from graders.rubric_model import Question, Rubric

T = TypeVar("T")


@dataclass(frozen=True)
class Resource(Generic[T]):
    """One per-process resource: its name, and by its type parameter what it holds
    (`SANDBOX = Resource[Sandbox]("sandbox")`)."""

    name: str


@dataclass
class GradingResources:
    """Per-process shared state (sandbox pool, embedding model, caches) and operator options.

    A worker process keeps one of these for its lifetime, so expensive things are built once.
    `options` is the mapping that crossed to the process; `settings` is it read, typed.
    """

    options: Mapping[str, Any] = field(default_factory=dict)
    _shared: dict[Resource[Any], Any] = field(default_factory=dict)
    # The options as each reader read them (these options only, unlike `_shared`, which
    # resources built over other options may share).
    _views: dict[Callable[[Mapping[str, Any]], Any], Any] = field(default_factory=dict,
                                                                 repr=False)

    def view(self, read: Callable[[Mapping[str, Any]], T]) -> T:
        """The options as `read` reads them (a typed model), read once."""
        if read not in self._views:
            self._views[read] = read(self.options)
        value: T = self._views[read]
        return value

    @property
    def settings(self) -> GradingOptions:
        return self.view(GradingOptions.from_mapping)

    def shared(self, key: Resource[T], factory: Callable[[], T]) -> T:
        """The process's `key`, built by `factory` on first use."""
        if key not in self._shared:
            self._shared[key] = factory()
        value: T = self._shared[key]
        return value

    def close(self) -> None:
        for value in self._shared.values():
            close = getattr(value, "close", None)
            if callable(close):
                close()
        self._shared.clear()


@dataclass(frozen=True)
class GradingContext:
    rubric: Rubric
    question: Question
    submission: ParsedSubmission
    resources: GradingResources
    # Results of items graded earlier in this run (questions are graded in rubric order).
    earlier: Mapping[str, ItemResult] = field(default_factory=dict)
    # Scratch space shared by every question of one `grade_submission` call (None outside
    # one): a grader may do work for several of the submission's questions at once (the code
    # grader runs all its sandbox jobs in one child) and leave the results here for them.
    per_submission: dict[str, Any] | None = None

    @property
    def review_threshold(self) -> float:
        override = self.resources.settings.review_threshold
        return override if override is not None else self.rubric.review_threshold
