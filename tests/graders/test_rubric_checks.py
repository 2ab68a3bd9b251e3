"""Cross-item checks of a rubric (references, point bounds) and the line each problem names."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.rubric import RubricError, battery_problems, parse_rubric


@dataclass
class Built:
    lines: list[str] = field(default_factory=list)
    # (line number, text the problem must contain)
    expected: list[tuple[int, str]] = field(default_factory=list)

    def add(self, text: str, expect: str | None = None) -> None:
        self.lines.append(text)
        if expect is not None:
            self.expected.append((len(self.lines), expect))


BREAKS = ("none", "misspelt", "self", "mistake_over", "carry_over", "negative", "cycle")


@st.composite
def broken_rubrics(draw: st.DrawFn) -> Built:
    """A numeric rubric of 2-6 items, each broken (or not) in one of several ways."""
    n = draw(st.integers(2, 6))
    ids = [f"q.item{i}" for i in range(n)]
    breaks = draw(st.lists(st.sampled_from(BREAKS), min_size=n, max_size=n))
    built = Built()
    for text in ("slug: gen", "title: Generated", "questions:", "  - id: Q1", "    items:"):
        built.add(text)
    cycle_pair = breaks.count("cycle") >= 1 and n >= 2
    for i, (item_id, kind) in enumerate(zip(ids, breaks, strict=True)):
        points = draw(st.integers(1, 9))
        built.add(f"      - id: {item_id}")
        if kind == "negative":
            built.add(f"        points: -{points}", "greater than or equal to 0")
        else:
            built.add(f"        points: {points}")
        built.add("        grader: numeric")
        built.add("        config:")
        built.add(f"          expected: {i + 100}")
        if kind == "mistake_over":
            built.add("          known_mistakes:")
            built.add(f"            - {{value: {i + 500}, points: {points + 1}, feedback: wrong}}",
                      "a known mistake is worth")
        target = None
        expect = None
        if kind == "misspelt":
            target, expect = item_id + "x", "no item has that id"
        elif kind == "self":
            target, expect = item_id, "points to its own item"
        elif kind == "carry_over":
            target = "q.anchor"
            built.add("          carry_forward:")
            built.add(f"            from_item: {target}")
            built.add(f"            points: {points + 2}", "carry-forward credit is worth")
            continue
        elif kind == "cycle" and cycle_pair and i == 0:
            target = ids[1]
        if target is not None:
            built.add("          carry_forward:")
            built.add(f"            from_item: {target}", expect)
            built.add("            points: 0")
    built.add("      - {id: q.anchor, points: 1, grader: numeric, config: {expected: 7}}")
    # item 1 points back at item 0 unless it already carries forward from something.
    if cycle_pair and breaks[0] == "cycle" and breaks[1] in (
        "none", "cycle", "negative", "mistake_over"
    ):
        start = next(i for i, line in enumerate(built.lines)
                     if line.strip() == f"- id: {ids[1]}")
        end = start + 5 + (2 if breaks[1] == "mistake_over" else 0)
        built.lines[end:end] = ["          carry_forward:",
                                f"            from_item: {ids[0]}",
                                "            points: 0"]
        # lines after the insertion moved down by 3
        built.expected = [(ln + 3 if ln > end else ln, text) for ln, text in built.expected]
        cycle_line = next(i for i, line in enumerate(built.lines, 1)
                          if line.strip() == f"from_item: {ids[1]}")
        built.expected.append((cycle_line, "carry-forward cycle"))
    return built


@settings(max_examples=150, deadline=None)
@given(broken_rubrics())
def test_every_break_is_reported_on_its_line(built: Built) -> None:
    text = "\n".join(built.lines) + "\n"
    if not built.expected:
        assert parse_rubric(text, "gen.yaml").rubric.slug == "gen"
        return
    with pytest.raises(RubricError) as info:
        parse_rubric(text, "gen.yaml")
    problems = info.value.problems
    expected = built.expected
    if any("greater than or equal" in words for _, words in expected):
        # Schema problems come first: the checks between items need a rubric that parses.
        expected = [(line, words) for line, words in expected if "greater than" in words]
    assert len(problems) == len(expected), (problems, expected)
    for line, words in expected:
        assert any(p.startswith(f"line {line}: ") and words in p for p in problems), (
            line, words, problems, text)


def _rubric(items: str) -> str:
    return "slug: t\ntitle: T\nquestions:\n  - id: Q\n    items:\n" + items


def test_misspelt_reference_suggests_the_close_id() -> None:
    text = _rubric(
        "      - {id: b1.total, points: 2, grader: numeric, config: {expected: 3}}\n"
        "      - id: b1.next\n        points: 1\n        grader: numeric\n"
        "        config: {expected: 6, carry_forward: {from_item: b1.totl, points: 1}}\n"
    )
    with pytest.raises(RubricError) as info:
        parse_rubric(text)
    (problem,) = info.value.problems
    assert problem.startswith("line 10: questions[Q].items[b1.next].config.carry_forward")
    assert "did you mean 'b1.total'" in problem


def test_carry_forward_from_a_written_item_is_refused() -> None:
    text = _rubric(
        "      - {id: w, points: 2, grader: written, config: {reference: [a sentence]}}\n"
        "      - {id: n, points: 1, grader: numeric,\n"
        "         config: {expected: 6, carry_forward: {from_item: w, points: 1}}}\n"
    )
    with pytest.raises(RubricError, match="only a numeric item's value"):
        parse_rubric(text)


@pytest.mark.parametrize(
    ("config", "words"),
    [
        ("{elements: [{id: e, patterns: [x]}], partial: [{points: 3, when: [e]}]}",
         "partial credit is worth 3"),
        ("{reference: [x], contradictions: [{patterns: [y], points: 5, feedback: f}]}",
         "a contradiction's cap"),
        ("{reference: [x], exemplars: [{text: t, points: 4}]}", "an exemplar is worth 4"),
    ],
)
def test_written_bounds(config: str, words: str) -> None:
    text = _rubric(f"      - {{id: w, points: 2, grader: written, config: {config}}}\n")
    with pytest.raises(RubricError) as info:
        parse_rubric(text)
    assert any(p.startswith("line 6: ") and words in p for p in info.value.problems)


def test_symbolic_partial_above_the_item() -> None:
    text = _rubric(
        "      - id: s\n        points: 1\n        grader: symbolic\n        config:\n"
        "          target: q\n          expected: k_a\n          without_scalar_points: 2\n"
    )
    with pytest.raises(RubricError) as info:
        parse_rubric(text)
    (problem,) = info.value.problems
    assert problem.startswith("line 12: ") and "credit without the scalar" in problem


def test_zero_total_and_yaml_syntax_errors_name_a_line() -> None:
    with pytest.raises(RubricError, match="worth 0 points in total"):
        parse_rubric(_rubric("      - {id: z, points: 0, grader: numeric, "
                             "config: {expected: 1}}\n"))
    with pytest.raises(RubricError) as info:
        parse_rubric("slug: t\ntitle: [unclosed\nquestions: []\n")
    assert info.value.problems[0].startswith("line ")


def test_a_known_mistake_equal_to_the_key_is_reported() -> None:
    text = _rubric(
        "      - {id: n, points: 1, grader: numeric,\n"
        "         config: {expected: 6, known_mistakes: [{value: 6, points: 0, feedback: f}]}}\n"
    )
    with pytest.raises(RubricError, match="has the expected value itself"):
        parse_rubric(text)


def test_a_battery_that_does_not_build_is_reported_at_its_first_item(tmp_path: Path) -> None:
    (tmp_path / "ref.py").write_text("def attention(Q, K, V):\n    return V, V\n")
    (tmp_path / "b.yaml").write_text(
        "function: attention\nmodule: ref.py\nreference: atention\n"
        "cases:\n  - {name: one, n: 2, m: 2, d_k: 2, d_v: 2}\n"
    )
    text = _rubric(
        "      - id: c.interface\n        points: 1\n        grader: code\n"
        "        config: {battery: b.yaml, check: interface}\n"
        "      - {id: c.weights, points: 1, grader: code,\n"
        "         config: {battery: b.yaml, check: weights}}\n"
    )
    loaded = parse_rubric(text, rubric_dir=tmp_path)  # the battery lies beside the rubric
    (problem,) = battery_problems(text.encode(), loaded.rubric)
    assert problem.startswith("line 9: questions[Q].items[c.interface].config.battery: ")
    assert "no reference function 'atention'" in problem
    battery = tmp_path / "b.yaml"
    battery.write_text(battery.read_text().replace("atention", "attention") + "# fixed\n")
    assert battery_problems(text.encode(), loaded.rubric) == []


def test_the_bundled_batteries_build() -> None:
    from graders.rubric import bundled_rubric_paths, load_rubric

    for path in bundled_rubric_paths():
        assert battery_problems(path.read_bytes(), load_rubric(path).rubric) == []


KIND_CONFIGS = {
    # kind -> (config lines with {q} for the inner points, the line offset of {q}, words)
    "written-partial": ("written", [
        "          elements: [{id: e, patterns: [x]}]",
        "          partial:",
        "            - {points: {q}, when: [e]}"], 3, "partial credit is worth"),
    "written-exemplar": ("written", [
        "          reference: [a model answer]",
        "          exemplars:",
        "            - {text: an answer, points: {q}}"], 3, "an exemplar is worth"),
    "numeric-mistake": ("numeric", [
        "          expected: 5",
        "          known_mistakes:",
        "            - {value: 6, points: {q}, feedback: wrong}"], 3, "a known mistake is worth"),
    "numeric-carry": ("numeric", [
        "          expected: 5",
        "          carry_forward: {from_item: q.first, points: {q}}"], 2, "carry-forward credit"),
    "symbolic-scalar": ("symbolic", [
        "          target: q",
        "          expected: k_a",
        "          without_scalar_points: {q}"], 3, "credit without the scalar"),
}


@settings(max_examples=80, deadline=None)
@given(
    st.sampled_from(sorted(KIND_CONFIGS)),
    st.decimals(min_value=0, max_value=20, places=2),
    st.decimals(min_value=0, max_value=20, places=2),
    st.integers(0, 3),
)
def test_inner_points_above_the_item_are_caught_on_their_line(
    case: str, item_points: object, inner: object, filler: int
) -> None:
    grader, config, offset, words = KIND_CONFIGS[case]
    lines = ["slug: gen", "title: Generated", "questions:", "  - id: Q", "    items:",
             "      - {id: q.first, points: 1, grader: numeric, config: {expected: 1}}"]
    lines += [f"      - {{id: q.fill{i}, points: 1, grader: numeric, config: {{expected: 2}}}}"
              for i in range(filler)]
    lines += ["      - id: q.target", f"        points: {item_points}",
              f"        grader: {grader}", "        config:"]
    start = len(lines)
    lines += [line.replace("{q}", str(inner)) for line in config]
    text = "\n".join(lines) + "\n"
    if inner <= item_points:  # type: ignore[operator]
        parse_rubric(text)
        return
    with pytest.raises(RubricError) as info:
        parse_rubric(text)
    (problem,) = info.value.problems
    assert problem.startswith(f"line {start + offset}: questions[Q].items[q.target].config.")
    assert words in problem
