"""`gradeformer regrade` re-scores its fast batches in its grading processes (app.regrade.batches
`fast_batch`) and stores what a regrade of one batch, in the command's own process, stores.

The CLI runs in real subprocesses on two copies of one real SQLite database. Batches of one
submission make the four submissions four batches.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from app.db.session import make_engine, make_sessionmaker
from tests.app.regrade.test_cache import KNOWN_MISTAKE, POINTS_AND_FEEDBACK, SECRET, SLUG
from tests.app.regrade.test_fast import stored
from tests.app.test_cli_regrade_startup import (
    KEPT,
    REPO,
    _database,
    _present,
    _regrade,
    use_edited_rubric,
)

RUN = (
    "import atexit, json, os, runpy, sys\n"
    "out, sys.argv = sys.argv[1], ['gradeformer', *sys.argv[2:]]\n"
    "from app.regrade import runner\n"
    "runner.FAST_BATCH = int(os.environ['FAST_BATCH'])\n"
    "atexit.register(lambda: open(out, 'w').write(json.dumps({'modules': sorted(sys.modules)})))\n"
    "runpy.run_module('app.cli.main', run_name='__main__', alter_sys=True)\n"
)


def _env(url: str, fast_batch: int) -> dict[str, str]:
    return dict(
        os.environ,
        GRADEFORMER_DATABASE_URL=url,
        GRADEFORMER_WORKERS="2",
        GRADEFORMER_REGRADE_BATCH="1",
        GRADEFORMER_CODE_INPUT_SECRET=SECRET,
        GRADEFORMER_RESULT_CACHE="true",
        OPENBLAS_NUM_THREADS="1",
        COLUMNS="200",
        FAST_BATCH=str(fast_batch),
    )


def _batched(tmp_path: Path, url: str, name: str, fast_batch: int) -> tuple[str, dict[str, Any]]:
    listing = tmp_path / f"{name}.json"
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(listing), "regrade", "--assignment", SLUG],
        cwd=REPO, env=_env(url, fast_batch), capture_output=True, text=True, timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return " ".join(done.stdout.split()), json.loads(listing.read_text())


def _edited_copies(tmp_path: Path) -> tuple[str, str]:
    """The database graded once (each run records its keys), the rubric edited, and a copy."""
    url, sessions = _database(tmp_path, KEPT)
    _regrade(tmp_path, url, "first")  # the grading processes: each run records its keys
    use_edited_rubric(tmp_path, sessions, POINTS_AND_FEEDBACK + KNOWN_MISTAKE)
    shutil.copy(tmp_path / "g.db", tmp_path / "one.db")
    return url, f"sqlite:///{tmp_path / 'one.db'}"


def _stored(url: str) -> list[tuple[Any, ...]]:
    sessions = make_sessionmaker(make_engine(url))
    try:
        return stored(sessions)
    finally:
        sessions.kw["bind"].dispose()


def test_fast_batches_in_the_grading_processes_store_what_one_batch_stores(
    tmp_path: Path,
) -> None:
    url, one_url = _edited_copies(tmp_path)
    four, _ = _batched(tmp_path, url, "four", fast_batch=1)
    one, alone = _batched(tmp_path, one_url, "one", fast_batch=1000)
    for out in (four, one):
        assert "regraded 4 submissions of transformer-basics" in out, out
        assert "4 re-scored in place" in out and "0 sent to the grading processes" in out, out
    assert four.split("; ")[-1] == one.split("; ")[-1]  # "N scores changed"
    # One batch, re-scored in the command: no grading process and no migrations.
    assert _present(set(alone["modules"])) == []
    assert _stored(url) == _stored(one_url)
