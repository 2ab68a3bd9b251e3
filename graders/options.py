"""The operator's choices a grading process is given, typed.

The options cross from the service to its grading processes (and Celery workers) as a plain
mapping (`app.settings.Settings.grading_options`: picklable, JSON-able, digested into the cache
keys); a process reads them here once, into a frozen model, and the graders read fields, not
string keys. A grader kind that has settings of its own reads them in its package from the same
mapping (`graders.written.settings.WrittenSettings`), and so does the sandbox
(`graders.sandbox.policy.SandboxPolicy.from_options`), imported only where code runs.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

DEFAULT_RESULT_CACHE_BYTES = 256 << 20
N = TypeVar("N", int, float)


def _path(value: Any) -> Path | None:
    return Path(str(value)) if value else None


def _number(kind: Callable[[Any], N], value: Any) -> N | None:
    return None if value is None else kind(value)


@dataclass(frozen=True)
class GradingOptions:
    # Confidence below which an item goes to review, over the rubric's (None: the rubric's).
    review_threshold: float | None = None
    # Code questions draw their inputs from this secret (None: a per-process random one).
    code_input_secret: str | None = None
    # Sandbox zygotes per grading process (the sandbox's own limits and layers are read by
    # `graders.sandbox.policy.SandboxPolicy.from_options`, where the sandbox is imported).
    sandbox_zygotes: int = 1
    # The process's result cache (None: none) and its size bound.
    result_cache_path: Path | None = None
    result_cache_bytes: int = DEFAULT_RESULT_CACHE_BYTES
    # A document's limits: answers located, seconds to read it, seconds to read and grade it.
    max_answers: int | None = None
    parse_seconds: float | None = None
    document_seconds: float | None = None
    # The grading process's niceness, and where a stored rubric's code batteries are.
    worker_nice: int = 0
    rubrics_dir: Path | None = None

    def __post_init__(self) -> None:
        if self.review_threshold is not None and not 0.0 <= self.review_threshold <= 1.0:
            raise ValueError(f"option review_threshold must be in [0, 1], not "
                             f"{self.review_threshold}")
        if self.sandbox_zygotes < 1:
            raise ValueError("option sandbox_zygotes must be at least 1")
        if self.result_cache_bytes < 1:
            raise ValueError("option result_cache_bytes must be positive")

    @classmethod
    def from_mapping(cls, options: Mapping[str, Any]) -> GradingOptions:
        threshold = options.get("review_threshold")
        secret = options.get("code_input_secret")
        return cls(
            review_threshold=None if threshold is None else float(threshold),
            max_answers=_number(int, options.get("max_answers")),
            parse_seconds=_number(float, options.get("parse_seconds")),
            document_seconds=_number(float, options.get("document_seconds")),
            worker_nice=int(options.get("worker_nice", 0)),
            rubrics_dir=_path(options.get("rubrics_dir")),
            code_input_secret=str(secret) if secret else None,
            sandbox_zygotes=int(options.get("sandbox_zygotes", 1)),
            result_cache_path=_path(options.get("result_cache_path")),
            result_cache_bytes=int(options.get("result_cache_bytes",
                                               DEFAULT_RESULT_CACHE_BYTES)),
        )
