"""`gradeformer grade` says when a document may not answer the assignment at all."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.shared_data import REPO


def test_grade_prints_the_doubt_for_a_document_answering_almost_nothing(tmp_path: Path) -> None:
    document = tmp_path / "other.md"
    document.write_text("Q1\n\nA perceptron draws one line, so XOR is not separable.\n")
    done = subprocess.run(
        [sys.executable, "-m", "app.cli.main", "grade", str(document),
         "--assignment", "transformer-basics"],
        capture_output=True, text=True, cwd=REPO, timeout=240, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "needs review: does this answer this assignment? 1 of" in " ".join(done.stdout.split())
