"""Hostile input in every field a student can fill: read and graded fast, nothing executed."""

from __future__ import annotations

import contextlib
import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.cache.codecs import encode_parsed, encode_results
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


# Lone surrogates as a JSON document can hold them (\ud800 escapes), in answers and keys: a
# stray code unit from a copy-paste between editors, or an attack on the encoders downstream.
_SURROGATES = st.integers(0xD800, 0xDFFF).map(lambda c: f"\\u{c:04x}")
_TEXT = st.lists(st.one_of(_SURROGATES, st.sampled_from(["XOR ", "is not ", "linear", " 64"])),
                 min_size=1, max_size=8).map("".join)


@settings(max_examples=25, deadline=None)
@given(answer=_TEXT, key=_TEXT)
def test_lone_surrogates_in_a_json_submission_are_read_as_replacement_characters(
        answer: str, key: str) -> None:
    loaded = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml")
    raw = ('{"student_id": "' + key + '", "answers": {"A1": "' + answer + '", "' + key
           + '": "' + answer + '"}}').encode()
    parsed = read_submission(raw, "s.json", None, loaded.rubric)
    # every encoder downstream takes it: the cache's, the database's, a terminal's
    encode_parsed(parsed)
    text = parsed.answers["A1"].text
    (text + (parsed.student_id or "")).encode("utf-8")
    # a high and a low surrogate in a row are one character (U+10000 and up), kept as it is
    decoded = json.loads('"' + answer + '"')
    lone = any(0xD800 <= ord(c) <= 0xDFFF for c in decoded)
    assert ("\ufffd" in text) == lone
    assert not any(0xD800 <= ord(c) <= 0xDFFF for c in text)


def test_lone_surrogates_are_graded_like_any_character(resources) -> None:
    loaded = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml")
    raw = b'{"answers": {"A1": "XOR is not linearly separable \\ud800, so one perceptron cannot"}}'
    outcome = grade_submission(loaded, read_submission(raw, "s.json", None, loaded.rubric),
                               resources)
    assert not any(r.status == "grader_error" for r in outcome.items)
    encode_results(outcome.items)


@pytest.mark.parametrize(("raw", "says"), [
    (b'{"answers": {"A1": ' + b"[" * 200_000 + b"]" * 200_000 + b"}}", "nested too deeply"),
    (b'{"answers": {"A1": ' + b"7" * 5_000 + b"}}", "more than 100 digits"),
    (b'{"answers": {"A1": -' + b"7" * 101 + b"}}", "more than 100 digits"),
    (b'{"nbformat": 4, "metadata": {}, "cells": [' + b",".join(
        [b'{"cell_type": "markdown", "metadata": {}, "source": "A1: 1"}'] * 5_001) + b"]}",
     "5001 cells; at most 5000"),
])
def test_json_beyond_what_an_answer_can_be_is_refused_with_the_reason(raw: bytes, says: str):
    loaded = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml")
    started = time.perf_counter()
    with pytest.raises(InvalidDocument, match=says):
        read_submission(raw, "s.json", None, loaded.rubric)
    assert time.perf_counter() - started < 5
