"""`gradeformer regrade` forks its fast-path workers (app.regrade.parallel) and stores what
the one-process regrade stores, still without a grading process or the migrations.

The CLI runs in real subprocesses on two copies of one real SQLite database: one with two
grading processes configured (two workers), one with one (no worker). Batches of one
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

from app.assignments.service import sync_rubric_dir
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from tests.app.test_cli_regrade_startup import KEPT, REPO, _database, _present, _regrade
from tests.app.test_regrade_cache import KNOWN_MISTAKE, POINTS_AND_FEEDBACK, RUBRIC, SECRET, SLUG
from tests.app.test_regrade_fast import stored

RUN = (
    "import atexit, json, os, runpy, sys\n"
    "out, sys.argv = sys.argv[1], ['gradeformer', *sys.argv[2:]]\n"
    "from app.regrade import runner\n"
    "runner.FAST_BATCH = 1\n"
    "forked, fork = [], os.fork\n"
    "def counted():\n"
    "    pid = fork()\n"
    "    if pid:\n"
    "        forked.append(pid)\n"
    "    return pid\n"
    "os.fork = counted\n"
    "atexit.register(lambda: open(out, 'w').write(json.dumps(\n"
    "    {'modules': sorted(sys.modules), 'forks': len(forked)})))\n"
    "runpy.run_module('app.cli.main', run_name='__main__', alter_sys=True)\n"
)


def _batched(tmp_path: Path, url: str, name: str, workers: int) -> tuple[str, dict[str, Any]]:
    env = dict(
        os.environ,
        GRADEFORMER_DATABASE_URL=url,
        GRADEFORMER_WORKERS=str(workers),
        GRADEFORMER_REGRADE_BATCH="1",
        GRADEFORMER_CODE_INPUT_SECRET=SECRET,
        GRADEFORMER_RESULT_CACHE="true",
        OPENBLAS_NUM_THREADS="1",
        COLUMNS="200",
    )
    listing = tmp_path / f"{name}.json"
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(listing), "regrade", "--assignment", SLUG],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return " ".join(done.stdout.split()), json.loads(listing.read_text())


def test_the_cli_forks_workers_that_store_what_one_process_stores(tmp_path: Path) -> None:
    url, sessions = _database(tmp_path, KEPT)
    _regrade(tmp_path, url, "first")  # the grading processes: each run records its keys
    edited = RUBRIC
    for old, new in POINTS_AND_FEEDBACK + KNOWN_MISTAKE:
        edited = edited.replace(old, new)
    (tmp_path / "rubrics").mkdir()
    (tmp_path / "rubrics" / f"{SLUG}.yaml").write_text(edited)
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, tmp_path / "rubrics")
    sessions.kw["bind"].dispose()
    shutil.copy(tmp_path / "g.db", tmp_path / "one.db")
    one_url = f"sqlite:///{tmp_path / 'one.db'}"

    two, forked = _batched(tmp_path, url, "two", workers=2)
    one, alone = _batched(tmp_path, one_url, "one", workers=1)
    assert forked["forks"] == 2 and alone["forks"] == 0
    for out in (two, one):
        assert "regraded 4 submissions of transformer-basics" in out, out
        assert "4 re-scored in place" in out and "0 sent to the grading processes" in out, out
    assert two.split("; ")[-1] == one.split("; ")[-1]  # "N scores changed"
    # Still no grading process and no migrations: the workers are forks of the CLI.
    assert _present(set(forked["modules"])) == []
    rows = []
    for each in (url, one_url):
        sessions = make_sessionmaker(make_engine(each))
        rows.append(stored(sessions))
        sessions.kw["bind"].dispose()
    assert rows[0] == rows[1]
