"""Grading a student's document through the real pipeline (document reader, engine, code grader,
sandbox), for the attacks on code questions: what a hostile program can make the grader say or
score."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

import pytest

from graders.cache import CACHE_KEY, MemoryStore, ResultCache
from graders.code import shared_sandbox
from graders.context import GradingContext, GradingResources
from graders.documents import ParsedSubmission, read_submission
from graders.engine import grade_submission
from graders.results import ItemResult
from graders.rubric import BUNDLED_RUBRICS, load_rubric

LOADED = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml")


class Grading:
    """One worker's resources: a sandbox, the operator's input secret, optionally a cache."""

    def __init__(self, resources: GradingResources) -> None:
        self.resources = resources

    def grade(self, question: str, code: str) -> dict[str, ItemResult]:
        """The question's items after grading a JSON document that answers it with `code`."""
        raw = json.dumps({"answers": {question: code}}).encode()
        parsed = read_submission(raw, "answers.json", "application/json", LOADED.rubric)
        outcome = grade_submission(LOADED, parsed, self.resources)
        prefix = question.lower() + "."
        return {r.item_id: r for r in outcome.items if r.item_id.startswith(prefix)}

    @property
    def cache(self) -> ResultCache:
        return self.resources.shared(CACHE_KEY, lambda: ResultCache(MemoryStore()))


@contextmanager
def grading(secret: str, cached: bool = False) -> Iterator[Grading]:
    resources = GradingResources(options={"code_input_secret": secret, "sandbox_timeout_s": 2.0})
    if cached:
        resources.shared(CACHE_KEY, lambda: ResultCache(MemoryStore()))
    rubric = LOADED.rubric
    context = GradingContext(
        rubric=rubric,
        question=rubric.questions[0],
        submission=ParsedSubmission(text="", format="text", answers={}),
        resources=resources,
    )
    missing = shared_sandbox(context).missing_required()
    if missing:
        resources.close()
        pytest.skip(f"this machine cannot provide the sandbox layers {missing}")
    try:
        yield Grading(resources)
    finally:
        resources.close()


def student_text(results: dict[str, ItemResult]) -> list[str]:
    return [results[k].student_feedback or "" for k in sorted(results)]


def staff_text(results: dict[str, ItemResult]) -> str:
    return " ".join(
        r.feedback + " " + " ".join(e.text for e in r.evidence) for r in results.values()
    )
