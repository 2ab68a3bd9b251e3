"""docs/authoring.md is run as written: its files are created, its commands run in order in a
scratch folder, and what it shows as their output is what they print.

Markers (HTML comments on the lines just before a fenced block):
- `<!-- file: PATH -->`: the block is written to PATH (created or replaced at that point);
  `<!-- append: PATH -->`: added at its end.
- `<!-- run -->` (or `<!-- run: exit N -->`): each line of the `sh` block runs in bash, in order,
  and must exit 0 (or N).
- `<!-- output -->`: every line of the block appears in the last command's output, numbers
  aside (the guide shows real output; confidences may move as the graders improve); `…` stands
  for any text. `<!-- output: exact -->`: numbers included.
- `<!-- expect-error: ... -->`: a rubric that must fail validation with that problem.
- `<!-- needs: battery -->`: the block belongs to the code section, which needs the general
  battery format (graders/code/functions.py); without it, that section alone is not run.
Every `yaml` block is a rubric (it has `slug`), a grades file (`*.grades.yaml`), a battery or a
part appended to a rubric; a rubric or grades file is checked as one even when no command reads
it, a battery and an appended part by the `rubric validate` that follows them.
"""

from __future__ import annotations

import importlib.util
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
_MARK = re.compile(r"<!-- (file|append|run|output|expect-error|needs)(?::\s*(.*?))? -->")
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
    if "append" in block.marks or re.search(r"^function: ", block.body, re.MULTILINE):
        assert "file" in block.marks or "append" in block.marks, source
        return  # a battery or a rubric's part: built by the `rubric validate` run after it
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
    assert len(grades) >= 3


def _matches(shown: str, output: str, exact: bool) -> bool:
    """`exact`: the line is in the output as it is. Else numbers aside, and across the line
    breaks of text wrapped to the terminal's width."""
    pieces = re.split(r"\s*…\s*", shown.strip())
    if exact:
        wanted = re.compile(".*".join(re.escape(p) for p in pieces))
        return any(wanted.search(line.rstrip()) for line in output.splitlines())

    def norm(text: str) -> str:
        return re.sub(r"\s+", " ", _NUMBER.sub("#", text))

    wanted = re.compile(".*?".join(re.escape(norm(p)) for p in pieces))
    return wanted.search(norm(output)) is not None


def _general_batteries() -> bool:
    return importlib.util.find_spec("graders.code.functions") is not None


def _walk(tmp_path: Path, with_code: bool) -> int:
    """Run the guide's blocks in order (the code section's only `with_code`); the commands run."""
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
        if "needs" in block.marks and not with_code:
            continue
        if "file" in block.marks or "append" in block.marks:
            target = work / (block.marks.get("file") or block.marks["append"])[0]
            target.parent.mkdir(parents=True, exist_ok=True)
            before = target.read_text(encoding="utf-8") if "append" in block.marks else ""
            target.write_text(before + block.body, encoding="utf-8")
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
    return ran


def test_the_walkthrough_runs_as_written(tmp_path: Path) -> None:
    assert _walk(tmp_path, with_code=False) >= 5


def test_the_code_section_runs_as_written(tmp_path: Path) -> None:
    if not _general_batteries():
        pytest.skip("the code section needs the general battery format (graders/code/"
                    "functions.py, issue #28's battery work), not merged into this checkout")
    assert _walk(tmp_path, with_code=True) >= 8
