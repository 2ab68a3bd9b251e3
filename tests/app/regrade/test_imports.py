"""A points-only `gradeformer regrade` imports no grader it does not run (issue #16).

Its re-scoring runs in the CLI's own process and reads the code and written graders' stored
results: their keys need each grader's version and config model (graders.registry reads them
from the kind's config module), not the graders, the sandbox, NumPy or the embedding model.
The CLI runs in a real subprocess under `python -X importtime`, whose report names every
module the process imported; no hook is added to the product for the test.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from graders import registry
from tests.app.cli.test_regrade_startup import (
    KEPT,
    REPO,
    _database,
    _present,
    _regrade,
    regrade_env,
    use_edited_rubric,
)
from tests.app.regrade.test_cache import POINTS_AND_FEEDBACK, SLUG

# The model's identity (graders.embedding.files, in the written groups' keys) is read, not the
# model: its package imports its modules on first use.
NOT_RUN = (
    "numpy",
    "graders.sandbox",
    "graders.code.grader",
    "graders.written.grader",
    "graders.written.similarity",
    "graders.written.risk",  # the calibration service reads its settings, not the rule
    "graders.written.calibration",
    "graders.written.scoring",
    "graders.embedding.model",
    "graders.embedding.bert",
    "graders.embedding.cache",
    "graders.embedding.tokens",
)
# Not anchored: the progress bar shares stderr, and may share a line with a report.
_IMPORTED = re.compile(r"import time:\s+\d+ \|\s+\d+ \| *([\w.]+)")


def _imported(tmp_path: Path, url: str) -> tuple[str, set[str]]:
    env = regrade_env(url)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "app.cli.main", "regrade", "--assignment", SLUG],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return " ".join(done.stdout.split()), set(_IMPORTED.findall(done.stderr))


def test_a_points_only_regrade_imports_no_grader_it_does_not_run(tmp_path: Path) -> None:
    url, sessions = _database(tmp_path, KEPT)
    first, _ = _regrade(tmp_path, url, "first")  # graded by the grading processes
    assert "regraded 4 submissions of transformer-basics" in first, first

    use_edited_rubric(tmp_path, sessions, POINTS_AND_FEEDBACK)

    second, modules = _imported(tmp_path, url)
    assert "regraded 4 submissions of transformer-basics" in second, second
    assert "0 sent to the grading processes" in second, second
    # The report is read right: it names what the re-scoring imported.
    assert {"graders.cache.rescore", "graders.cache.runs", "graders.written.settings"} <= modules
    assert _present(modules, NOT_RUN) == []


@pytest.mark.parametrize("kind", sorted(registry.KINDS))
def test_the_light_version_and_config_model_are_the_graders(kind: str) -> None:
    # The cache keys read the version from the kind's config module: it must be the grader's.
    grader = registry.get_grader(kind)
    assert grader is not None
    assert registry.grader_version(kind) == grader.version
    assert registry.config_model_for(kind) is grader.config_model
