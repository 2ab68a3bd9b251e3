"""Every YAML example of docs/rubrics.md goes through the rubric validator: the valid ones must
pass, the ones marked `<!-- expect-error: ... -->` must fail with exactly those problems."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml

from graders.code.functions import build_function_battery
from graders.rubric import RubricError, parse_rubric

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "rubrics.md"
_BLOCK = re.compile(r"((?:<!-- [a-z-]+: .*? -->\n)*)```yaml\n(.*?)```", re.DOTALL)
_EXPECT = re.compile(r"<!-- expect-error: (.*?) -->")
# A block marked `battery: FOLDER` is a code battery whose module lies in docs/FOLDER; one
# marked `beside: FOLDER` is a rubric whose batteries lie there.
_BATTERY = re.compile(r"<!-- battery: (.*?) -->")
_BESIDE = re.compile(r"<!-- beside: (.*?) -->")


def _examples() -> list[tuple[int, str, list[str]]]:
    text = GUIDE.read_text(encoding="utf-8")
    return [
        (text[: m.start(2)].count("\n") + 1, m.group(2), _EXPECT.findall(m.group(1)))
        for m in _BLOCK.finditer(text) if not _BATTERY.search(m.group(1))
    ]


def _batteries() -> list[tuple[int, str, str]]:
    text = GUIDE.read_text(encoding="utf-8")
    return [(text[: m.start(2)].count("\n") + 1, m.group(2), found.group(1))
            for m in _BLOCK.finditer(text) if (found := _BATTERY.search(m.group(1)))]


def _folders() -> dict[str, Path]:
    text = GUIDE.read_text(encoding="utf-8")
    return {m.group(2): GUIDE.parent / found.group(1)
            for m in _BLOCK.finditer(text) if (found := _BESIDE.search(m.group(1)))}


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
        # raises, naming the block's line, when it rots
        parse_rubric(body, source, _folders().get(body))
        return
    with pytest.raises(RubricError) as info:
        parse_rubric(body, source)
    problems = info.value.problems
    assert len(problems) == len(expected), problems
    for words in expected:
        assert any(words in p for p in problems), (words, problems)


@pytest.mark.parametrize(("line", "body", "folder"), _batteries(),
                         ids=lambda v: str(v) if isinstance(v, int) else "")
def test_guide_battery(line: int, body: str, folder: str) -> None:
    """A battery example is built as grading builds it, with the module of its example folder:
    its reference runs on every case and its variants are told apart from it."""
    directory = GUIDE.parent / folder
    battery = build_function_battery(directory / f"{GUIDE.name}:{line}.yaml",
                                     yaml.safe_load(body))
    assert battery.indistinguishable() == []


def test_the_guide_has_battery_examples_beside_their_rubrics() -> None:
    assert len(_batteries()) >= 2 and _folders()


_SUBMISSION = re.compile(r"<!-- submission: (.*?) -->\n```json\n(.*?)```", re.DOTALL)


def test_the_declared_edition_example_grades_as_the_guide_says() -> None:
    """"Declaring the edition": the JSON submission declares 2022 against the two-editions
    rubric: 1e is set aside and counts 0 of 0 with the messages quoted, out of 2 points; the
    same answers undeclared are graded out of 3."""
    from graders.documents import read_submission
    from graders.engine import NO_ANSWER, unanswered

    text = GUIDE.read_text(encoding="utf-8")
    [(slug, body)] = _SUBMISSION.findall(text)
    [rubric] = [parse_rubric(b, "guide") for _, b, e in _examples()
                if not e and f"slug: {slug}\n" in b]
    raw = body.encode()

    def maximum(handout: str | None) -> int:
        parsed = read_submission(raw, "s.json", "application/json", rubric.rubric)
        assert parsed.handout == handout
        total = 0
        for question in rubric.rubric.questions:
            if question.id in parsed.answers:
                total += sum(int(i.points) for i in question.items)
                continue
            results = unanswered(rubric.rubric, question,
                                 parsed.missing.get(question.id, NO_ANSWER), parsed.doubt,
                                 parsed.handout)
            total += sum(int(r.max_points) for r in results)
            if handout is not None:
                [result] = results
                for said in (result.feedback.split(". ")[0], result.student_feedback):
                    assert said and said.replace("\n", " ") in " ".join(text.split()), said
        return total

    assert "graded out of 2 points" in text and maximum("2022") == 2
    raw = json.dumps({k: v for k, v in json.loads(body).items() if k != "handout"}).encode()
    assert "graded out of 3" in text and maximum(None) == 3
