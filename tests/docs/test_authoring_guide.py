"""docs/authoring.md is run as written: its files are created, its commands run in order in a
scratch folder, and what it shows as their output is what they print.

Markers (HTML comments on the lines just before a fenced block):
- `<!-- file: PATH -->`: the block is written to PATH (created or replaced at that point).
- `<!-- run -->` (or `<!-- run: exit N -->`): each line of the `sh` block runs in bash, in order,
  and must exit 0 (or N).
- `<!-- output -->`: every line of the block appears in the last command's output, numbers
  aside (the guide shows real output; confidences may move as the graders improve); `…` stands
  for any text. `<!-- output: exact -->`: numbers included.
- `<!-- expect-error: ... -->`: a rubric that must fail validation with that problem.
Every `yaml` block is a rubric (it has `slug`) or a grades file (`*.grades.yaml`), and is
checked as one even when no command reads it.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import yaml

from graders.evaluation import parse_grades
from graders.rubric import RubricError, parse_rubric
from tests.shared_data import REPO

GUIDE = REPO / "docs" / "authoring.md"
_BLOCK = re.compile(r"((?:<!-- [^\n]*? -->\n)*)```(\w*)\n(.*?)```", re.DOTALL)
_MARK = re.compile(r"<!-- (file|run|output|expect-error)(?::\s*(.*?))? -->")
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


@dataclass
class Block:
    line: int
    language: str
    body: str
    marks: dict[str, list[str]] = field(default_factory=dict)


def _blocks() -> list[Block]:
    text = GUIDE.read_text(encoding="utf-8")
    blocks = []
    for match in _BLOCK.finditer(text):
        marks: dict[str, list[str]] = {}
        for kind, value in _MARK.findall(match.group(1)):
            marks.setdefault(kind, []).append(value)
        line = text[: match.start(3)].count("\n") + 1
        blocks.append(Block(line, match.group(2), match.group(3), marks))
    return blocks


def _yaml_blocks() -> list[Block]:
    return [b for b in _blocks() if b.language == "yaml"]


@pytest.mark.parametrize("block", _yaml_blocks(), ids=lambda b: f"line{b.line}")
def test_every_yaml_example_is_a_valid_rubric_or_grades_file(block: Block) -> None:
    source = f"{GUIDE.name}:{block.line}"
    path = (block.marks.get("file") or [""])[0]
    if path.endswith(".grades.yaml"):
        parse_grades(yaml.safe_load(block.body))
        return
    assert re.search(r"^slug: ", block.body, re.MULTILINE), f"{source}: neither rubric nor grades"
    expected = block.marks.get("expect-error", [])
    if not expected:
        if path:
            return  # written to disk and validated there, where a battery's folder exists
        parse_rubric(block.body, source)
        return
    with pytest.raises(RubricError) as info:
        parse_rubric(block.body, source)
    problems = info.value.problems
    assert len(problems) == len(expected), problems
    for words in expected:
        assert any(words in p for p in problems), (words, problems)


def test_the_guide_covers_every_kind_of_item_and_the_whole_loop() -> None:
    blocks = _blocks()
    bodies = "\n".join(b.body for b in blocks)
    for kind in ("numeric", "written", "code"):
        assert f"grader: {kind}" in bodies, kind
    commands = "\n".join(b.body for b in blocks if "run" in b.marks)
    for command in ("gradeformer rubric validate", "--show", "gradeformer evaluate"):
        assert command in commands, command
    grades = [b for b in blocks if (b.marks.get("file") or [""])[0].endswith(".grades.yaml")]
    assert 3 <= len(grades) <= 5


def _matches(shown: str, output: str, exact: bool) -> bool:
    def norm(text: str) -> str:
        return text if exact else _NUMBER.sub("#", text)

    lines = [norm(line.rstrip()) for line in output.splitlines()]
    pieces = [re.escape(p) for p in re.split(r"\s*…\s*", norm(shown.strip()))]
    wanted = re.compile(".*".join(pieces))
    return any(wanted.search(line) for line in lines)


def test_the_walkthrough_runs_as_written(tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "GRADEFORMER_DATABASE_URL": f"sqlite:///{tmp_path}/state/gradeformer.db",
    }
    env.pop("GRADEFORMER_RUBRICS_DIR", None)
    work = tmp_path / "work"
    work.mkdir()
    output = ""
    ran = 0
    for block in _blocks():
        where = f"{GUIDE.name}:{block.line}"
        if "file" in block.marks:
            target = work / block.marks["file"][0]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.body, encoding="utf-8")
        elif "run" in block.marks:
            wanted = block.marks["run"][0]
            code = int(wanted.removeprefix("exit").strip()) if wanted else 0
            output = ""
            for command in block.body.splitlines():
                if not command.strip() or command.lstrip().startswith("#"):
                    continue
                done = subprocess.run(["bash", "-c", command], cwd=work, env=env,
                                      capture_output=True, text=True, timeout=300, check=False)
                output += done.stdout + done.stderr
                assert done.returncode == code, (where, command, done.stdout, done.stderr)
                ran += 1
        elif "output" in block.marks:
            exact = block.marks["output"][0] == "exact"
            for line in block.body.splitlines():
                if line.strip():
                    assert _matches(line, output, exact), (where, line, output)
    assert ran >= 5
