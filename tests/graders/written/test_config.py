from __future__ import annotations

import pytest
from pydantic import ValidationError

from graders.rubric import RubricError, bundled_rubric_paths, load_rubric, parse_rubric
from graders.written import WrittenConfig


def test_reference_only_config_is_accepted() -> None:
    config = WrittenConfig.model_validate({"reference": ["XOR is not linearly separable."]})
    assert config.elements == () and config.required == ()


def test_unknown_element_in_partial_is_rejected() -> None:
    with pytest.raises(ValidationError, match="unknown element"):
        WrittenConfig.model_validate({
            "elements": [{"id": "a", "patterns": ["x"]}],
            "partial": [{"points": 1, "when": ["b"]}],
        })


def test_float_points_become_exact() -> None:
    config = WrittenConfig.model_validate({
        "elements": [{"id": "a", "patterns": ["x"]}],
        "partial": [{"points": 0.1, "when": ["a"]}],
    })
    assert str(config.partial[0].points) == "0.1"


def test_rubric_reports_a_broken_pattern_with_its_place() -> None:
    text = """
slug: t
title: T
questions:
  - id: Q
    items:
      - id: q.one
        points: 2
        grader: written
        config:
          elements: [{id: a, patterns: ['(broken']}]
"""
    with pytest.raises(RubricError) as error:
        parse_rubric(text)
    assert any("q.one" in p and "does not compile" in p for p in error.value.problems)


def test_bundled_rubrics_load() -> None:
    for path in bundled_rubric_paths():
        load_rubric(path)
