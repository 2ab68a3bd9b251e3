"""`gradeformer grade` and `rubric validate` on a battery that asks for a class's method (the
layer-norm example), through the real command in its own process: a Markdown answer and a
notebook whose class is defined in one cell and used in the answer's."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from tests.shared_data import REPO

EXAMPLE = REPO / "docs" / "examples" / "layer-norm"
CLASS = """import numpy as np

class LayerNorm:
    def __init__(self, d, eps=1e-5):
        self.gamma, self.beta, self.eps = np.ones(d), np.zeros(d), eps

    def forward(self, x):
        mu = x.mean(axis=-1, keepdims=True)
        return self.gamma * (x - mu) / np.sqrt(x.var(axis=-1, keepdims=True) + self.eps) \\
            + self.beta
"""


def _command(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "GRADEFORMER_DATABASE_URL": f"sqlite:///{tmp_path}/none/g.db"}
    return subprocess.run([sys.executable, "-m", "app.cli.main", *args], capture_output=True,
                          text=True, cwd=REPO, env=env, timeout=240, check=False)


def _grade(tmp_path: Path, answer: Path) -> dict[str, dict[str, object]]:
    done = _command(tmp_path, "grade", str(answer), "--rubric",
                    str(EXAMPLE / "numpy-layer-norm.yaml"), "--format", "json")
    assert done.returncode == 0, done.stderr
    return {item["id"]: item for item in json.loads(done.stdout)["items"]}


def test_a_markdown_answer_with_the_class(tmp_path: Path) -> None:
    answer = tmp_path / "hw.md"
    answer.write_text(f"# LN\n\nMy layer norm:\n\n```python\n{CLASS}```\n")
    items = _grade(tmp_path, answer)
    assert {k: v["points"] for k, v in items.items()} == {
        "ln.interface": 1, "ln.values": 1, "ln.eps": 1}, items
    wrong = CLASS.replace("np.sqrt(x.var(axis=-1, keepdims=True) + self.eps)",
                          "(x.std(axis=-1, keepdims=True) + self.eps)")
    answer.write_text(f"# LN\n\n```python\n{wrong}```\n")
    items = _grade(tmp_path, answer)
    assert items["ln.eps"]["points"] == 0 and items["ln.interface"]["points"] == 1


def test_a_notebook_whose_class_is_in_an_earlier_cell(tmp_path: Path) -> None:
    def cell(kind: str, source: str) -> dict[str, object]:
        extra = {"outputs": [], "execution_count": None} if kind == "code" else {}
        return {"cell_type": kind, "metadata": {}, "source": source, **extra}

    base, method = CLASS.split("    def forward")
    notebook = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        cell("markdown", "# Homework"),
        cell("code", base.replace("class LayerNorm:", "class Base:")),
        cell("markdown", "## LN"),
        cell("code", "class LayerNorm(Base):\n    def forward" + method),
    ]}
    answer = tmp_path / "hw.ipynb"
    answer.write_text(json.dumps(notebook))
    items = _grade(tmp_path, answer)
    assert {k: v["points"] for k, v in items.items()} == {
        "ln.interface": 1, "ln.values": 1, "ln.eps": 1}, items


def test_rubric_validate_runs_the_reference_class(tmp_path: Path) -> None:
    for name in ("layer-norm.yaml", "layer_norm.py", "numpy-layer-norm.yaml"):
        shutil.copy(EXAMPLE / name, tmp_path / name)
    done = _command(tmp_path, "rubric", "validate", str(tmp_path))
    assert done.returncode == 0 and "numpy-layer-norm.yaml: numpy-layer-norm" in done.stdout, done
    module = tmp_path / "layer_norm.py"
    module.write_text(module.read_text().replace("def forward(self, x: Array) -> Array:\n"
                                                 "        mean = x.mean(axis=-1, keepdims=True)\n"
                                                 "        var",
                                                 "def apply(self, x: Array) -> Array:\n"
                                                 "        mean = x.mean(axis=-1, keepdims=True)\n"
                                                 "        var", 1))
    done = _command(tmp_path, "rubric", "validate", str(tmp_path))
    said = done.stdout + done.stderr
    assert done.returncode == 1 and "the reference fails on case 'drawn #1'" in said, said
    assert "no method 'forward'" in said, said
