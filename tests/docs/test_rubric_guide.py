"""Every YAML example of docs/rubrics.md goes through the rubric validator: the valid ones must
pass, the ones marked `<!-- expect-error: ... -->` must fail with exactly those problems."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from graders.rubric import RubricError, parse_rubric

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "rubrics.md"
_BLOCK = re.compile(r"((?:<!-- expect-error: .*? -->\n)*)```yaml\n(.*?)```", re.DOTALL)
_EXPECT = re.compile(r"<!-- expect-error: (.*?) -->")


def _examples() -> list[tuple[int, str, list[str]]]:
    text = GUIDE.read_text(encoding="utf-8")
    return [
        (text[: m.start(2)].count("\n") + 1, m.group(2), _EXPECT.findall(m.group(1)))
        for m in _BLOCK.finditer(text)
    ]


def test_the_guide_has_examples_of_every_grader_kind() -> None:
    blocks = "\n".join(body for _, body, _ in _examples())
    for kind in ("numeric", "symbolic", "code", "written"):
        assert f"grader: {kind}" in blocks, kind
    assert sum(1 for _, _, expect in _examples() if expect) >= 3


@pytest.mark.parametrize(("line", "body", "expected"), _examples(),
                         ids=lambda v: str(v) if isinstance(v, int) else "")
def test_guide_example(line: int, body: str, expected: list[str]) -> None:
    source = f"{GUIDE.name}:{line}"
    if not expected:
        parse_rubric(body, source)  # raises, naming the block's line, when it rots
        return
    with pytest.raises(RubricError) as info:
        parse_rubric(body, source)
    problems = info.value.problems
    assert len(problems) == len(expected), problems
    for words in expected:
        assert any(words in p for p in problems), (words, problems)
