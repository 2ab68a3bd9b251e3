"""Hostile input in every field a student can fill: read and graded fast, nothing executed."""

from __future__ import annotations

import contextlib
import json
import time

import pytest

from graders.context import GradingResources
from graders.documents import InvalidDocument, read_submission
from graders.engine import grade_submission
from graders.rubric import BUNDLED_RUBRICS, load_rubric

PAYLOADS = [
    "10^{10^{10}}",
    "(10^9)!",
    "{" * 3000 + "64" + "}" * 3000,
    "__import__('os').system('touch {marker}')",
    "q = __import__('os').system('touch {marker}')",
]


@pytest.fixture(scope="module")
def resources():
    shared = GradingResources()
    yield shared
    shared.close()


@pytest.mark.parametrize("slug", ["transformer-basics", "cs224n-attention"])
def test_hostile_json_fields(slug, resources, tmp_path):
    loaded = load_rubric(BUNDLED_RUBRICS / f"{slug}.yaml")
    marker = tmp_path / "pwned"
    payloads = [p.replace("{marker}", str(marker)) for p in PAYLOADS]
    answers: dict[str, object] = {}
    for n, question in enumerate(loaded.rubric.questions):
        answers[question.id] = payloads[n % len(payloads)]
        for item in question.items:
            answers[item.id] = [payloads[(n + 1) % len(payloads)]]
    answers[payloads[3]] = payloads[3]  # a hostile key too
    raw = json.dumps({"student_id": payloads[3], "answers": answers}).encode()
    started = time.perf_counter()
    parsed = read_submission(raw, "s.json", None, loaded.rubric)
    outcome = grade_submission(loaded, parsed, resources)
    elapsed = time.perf_counter() - started
    assert not marker.exists()
    assert all(r.points == 0 or r.grader in ("written", "code") for r in outcome.items)
    assert elapsed < 30, elapsed


def test_hostile_text_document(resources, tmp_path):
    loaded = load_rubric(BUNDLED_RUBRICS / "cs224n-attention.yaml")
    marker = tmp_path / "pwned"
    body = "\n\n".join(
        f"1. {letter}. i) q = {p.replace('{marker}', str(marker))}"
        for letter, p in zip("abcde", PAYLOADS, strict=True)
    )
    started = time.perf_counter()
    parsed = read_submission(body.encode(), "s.md", None, loaded.rubric)
    grade_submission(loaded, parsed, resources)
    assert time.perf_counter() - started < 30
    assert not marker.exists()


def test_huge_nesting_in_a_document_is_rejected_or_read_fast():
    loaded = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml")
    raw = ("Q1 " + "(" * 50_000 + "\n").encode()
    started = time.perf_counter()
    with contextlib.suppress(InvalidDocument):
        read_submission(raw, "s.txt", None, loaded.rubric)
    assert time.perf_counter() - started < 5
