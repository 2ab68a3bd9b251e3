"""Rubric visibility and release: validated, additive, and public titles never state answers."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from graders.disclosure import answer_values, solution_text, states_value
from graders.rubric import RubricError, bundled_rubric_paths, load_rubric, parse_rubric


def _rubric(item_extra: str = "", top_extra: str = "", title: str = "The value") -> str:
    return f"""
slug: tiny
title: Tiny
{top_extra}
questions:
  - id: Q1
    items:
      - id: q1.value
        points: 2
        grader: numeric
        title: "{title}"
        config: {{expected: 589824, kind: integer, known_mistakes: [{{value: 49152, points: 1,
                  feedback: one head}}]}}
        {item_extra}
"""


def test_defaults_keep_everything_until_published() -> None:
    rubric = parse_rubric(_rubric()).rubric
    item = next(rubric.items())
    assert rubric.release.visibility == "after_published"
    assert rubric.release.solutions == "never"
    assert rubric.visibility_of(item) == "after_published" and not item.title_public


def test_item_visibility_overrides_the_rubric_default() -> None:
    text = _rubric("visibility: after_due_date", "release: {visibility: visible}")
    rubric = parse_rubric(text).rubric
    assert rubric.visibility_of(next(rubric.items())) == "after_due_date"


@pytest.mark.parametrize(
    ("item_extra", "top_extra", "where"),
    [
        ("visibility: later", "", "visibility"),
        ("", "release: {visibility: sometimes}", "release.visibility"),
        ("", "release: {solutions: visible}", "release.solutions"),
        ("", "release: {reveal: all}", "release.reveal"),
    ],
)
def test_unknown_settings_are_refused_with_their_location(
    item_extra: str, top_extra: str, where: str
) -> None:
    with pytest.raises(RubricError) as error:
        parse_rubric(_rubric(item_extra, top_extra))
    assert any(where in problem for problem in error.value.problems), error.value.problems


@pytest.mark.parametrize("title", ["W_Q has 589,824 weights", "589824 per matrix", "49152"])
def test_a_public_title_may_not_state_the_answer(title: str) -> None:
    with pytest.raises(RubricError) as error:
        parse_rubric(_rubric("title_public: true", title=title))
    assert "title_public" in str(error.value) and "answer value" in str(error.value)
    parse_rubric(_rubric(title=title))  # private, it may


def test_a_public_title_that_gives_nothing_away_is_fine() -> None:
    rubric = parse_rubric(_rubric("title_public: true", title="Weights of W_Q (5898 is not it)"))
    assert next(rubric.rubric.items()).title_public


def test_solutions_come_from_the_config_unless_written() -> None:
    item = next(parse_rubric(_rubric()).rubric.items())
    assert solution_text(item) == "589,824"
    assert answer_values(item) == ["589824", "589,824", "49152", "49,152"]
    own = next(parse_rubric(_rubric('solution: "768 x 768 = 589,824"')).rubric.items())
    assert solution_text(own) == "768 x 768 = 589,824"


def test_bundled_public_titles_state_no_answer() -> None:
    for path in bundled_rubric_paths():
        rubric = load_rubric(path).rubric
        for item in rubric.items():
            if item.title_public:
                assert states_value(item.title, answer_values(item)) is None
                assert solution_text(item) not in item.title


@given(st.integers(min_value=10, max_value=10**9), st.text(alphabet=" abcxyz=:(", max_size=30))
def test_a_value_inside_a_longer_number_is_not_stated(value: int, words: str) -> None:
    spelled = str(value)
    assert states_value(f"{words} {spelled} {words}", [spelled]) == spelled
    assert states_value(f"1{spelled}", [spelled]) is None
    assert states_value(f"{spelled}.5", [spelled]) is None
