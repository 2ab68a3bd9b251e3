"""An item that reads a program's text without running it is never graded on its own.

The class of real writing: instructors who have no battery for their function write the rubric
they can, written items whose patterns or phrasings read the submitted code (a guard clause, a
`np.zeros((position, d_model))`, a `float16` cast). Code that reads right may not run at all
(tabs and spaces mixed, a name undefined), and code that reads wrong may work; the machine's
points stay as a suggestion, the status is `needs_review`.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.engine import UNRUN, grade_submission, unrun_items
from graders.results import Status
from graders.rubric import parse_rubric

RUBRIC = """
slug: unrun-test
title: Reading code without running it
questions:
  - id: PE
    answer_kind: {kind}
    items:
      - id: pe.dtype
        points: 1
        grader: written
        config:
          reference: [The result is cast to float16.]
          elements:
            - id: cast
              label: casts to float16
              patterns: ['float16']
      - id: pe.zeros
        points: 1
        grader: written
        config:
          reference: [The matrix starts as np.zeros((position, d_model)).]
          elements:
            - id: zeros
              label: allocates the matrix
              patterns: ['np.zeros']
"""


def _grade(kind: str, text: str):
    loaded = parse_rubric(RUBRIC.format(kind=kind))
    parsed = ParsedSubmission(
        text=text, format="json",
        answers={"PE": LocatedAnswer(question_id="PE", text=text, method="json")},
    )
    return loaded, {r.item_id: r for r in grade_submission(loaded, parsed).items}


# Programs as students write them: a function over the two parameters, some of them indented
# with a tab, all of them mentioning what the patterns look for.
_indent = st.sampled_from(["    ", "\t", "  "])
_body = st.lists(st.sampled_from([
    "pe = np.zeros((position, d_model))",
    "pe = pe.astype(np.float16)",
    "if position == 0 or d_model <= 0: return -1",
    "pe[:, 0::2] = np.sin(angles[:, 0::2])",
    "return np.float16(pe)",
]), min_size=1, max_size=5)


@settings(max_examples=40, deadline=None)
@given(indent=_indent, body=_body)
def test_a_written_item_on_a_code_answer_is_never_graded(indent: str, body: list[str]) -> None:
    program = "import numpy as np\ndef pos_encoding(position, d_model):\n" + "".join(
        f"{indent}{line}\n" for line in body) + f"{indent}return pe.astype(np.float16)\n"
    _, results = _grade("code", program)
    for result in results.values():
        assert result.status is not Status.GRADED
        if result.status is Status.NEEDS_REVIEW and "does not run it" in result.feedback:
            assert f"suggests {result.points} of {result.max_points}" in result.feedback


def test_the_suggestion_and_the_reason_are_kept() -> None:
    program = ("import numpy as np\ndef pos_encoding(position, d_model):\n"
               "\tpe = np.zeros((position, d_model))\n    return pe.astype(np.float16)\n")
    _, results = _grade("code", program)
    dtype = results["pe.dtype"]
    assert dtype.status is Status.NEEDS_REVIEW
    assert dtype.points == 1  # the machine's suggestion, for the reviewer to accept or not
    assert UNRUN in dtype.feedback


def test_the_same_item_on_a_prose_answer_is_graded() -> None:
    _, results = _grade("prose", "I allocate it with np.zeros and cast the result to float16.")
    assert results["pe.dtype"].status is Status.GRADED
    assert results["pe.zeros"].status is Status.GRADED


def test_validate_names_the_items() -> None:
    loaded = parse_rubric(RUBRIC.format(kind="code"))
    [(question, items)] = unrun_items(loaded.rubric)
    assert question.id == "PE"
    assert [i.id for i in items] == ["pe.dtype", "pe.zeros"]
    assert unrun_items(parse_rubric(RUBRIC.format(kind="prose")).rubric) == []


def test_rubric_validate_prints_a_note(tmp_path: Path) -> None:
    path = tmp_path / "unrun.yaml"
    path.write_text(RUBRIC.format(kind="code"))
    done = subprocess.run([sys.executable, "-m", "app.cli.main", "rubric", "validate", str(path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "note" in done.stdout and "pe.dtype, pe.zeros read its text" in done.stdout
