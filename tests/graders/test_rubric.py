from decimal import Decimal

import pytest

from graders.rubric import RubricError, bundled_rubric_paths, load_rubric, parse_rubric

MINIMAL = """
slug: tiny
title: Tiny
questions:
  - id: Q1
    items:
      - id: q1.value
        points: 2.5
        grader: numeric
        config: {expected: 3, kind: integer}
"""


def test_bundled_rubrics_validate() -> None:
    paths = bundled_rubric_paths()
    assert any(p.name == "transformer-basics.yaml" for p in paths)
    for path in paths:
        loaded = load_rubric(path)
        assert loaded.rubric.slug == path.stem
        assert len(loaded.content_hash) == 64


def test_transformer_basics_matches_the_answer_key_split() -> None:
    rubric = load_rubric(next(p for p in bundled_rubric_paths() if p.stem == "transformer-basics"))
    assert rubric.rubric.max_points == Decimal(100)
    by_part: dict[str, Decimal] = {}
    for question in rubric.rubric.questions:
        by_part[question.part] = by_part.get(question.part, Decimal(0)) + sum(
            (i.points for i in question.items), Decimal(0)
        )
    assert by_part == {"A": Decimal(60), "B": Decimal(40)}
    ids = {item.id for item in rubric.rubric.items()}
    assert {"a1.nonseparable", "a5.dims", "b1.total", "b2.values", "b3.stable", "b4.causal"} <= ids
    assert len(ids) == 33


def test_points_are_exact_decimals() -> None:
    loaded = parse_rubric(MINIMAL)
    assert loaded.rubric.questions[0].items[0].points == Decimal("2.5")


def test_hash_changes_with_content() -> None:
    assert parse_rubric(MINIMAL).content_hash != parse_rubric(MINIMAL + "\n# edit\n").content_hash


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("slug: [unclosed", "not valid YAML"),
        ("- a list", "top level must be a mapping"),
        (MINIMAL.replace("points: 2.5", "points: -1"), "questions[Q1].items[q1.value].points"),
        (MINIMAL.replace("grader: numeric", "grader: tarot"), "unknown grader kind 'tarot'"),
        (MINIMAL.replace("title: Tiny\n", ""), "title: Field required"),
        (MINIMAL + "  - id: Q1\n    items: [{id: x, points: 1, grader: numeric}]\n", "used twice"),
        (MINIMAL.replace("slug: tiny", "slug: Not A Slug"), "slug"),
    ],
)
def test_errors_name_the_field(text: str, expected: str) -> None:
    with pytest.raises(RubricError) as info:
        parse_rubric(text, "tiny.yaml")
    assert expected in str(info.value)
    assert str(info.value).startswith("tiny.yaml: ")


def test_missing_file_is_a_rubric_error(tmp_path) -> None:
    with pytest.raises(RubricError, match="cannot read"):
        load_rubric(tmp_path / "nope.yaml")
