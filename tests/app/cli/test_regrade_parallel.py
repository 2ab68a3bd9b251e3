"""`gradeformer regrade` forks its fast-path workers (app.regrade.batches) and stores what
the one-process regrade stores, still without a grading process or the migrations.

The CLI runs in real subprocesses on two copies of one real SQLite database: one with two
grading processes configured (two workers), one with one (no worker). Batches of one
submission make the four submissions four batches.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from sqlalchemy import select

from app.db.models import RegradeJob
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from tests.app.cli.test_regrade_startup import (
    KEPT,
    REPO,
    _database,
    _present,
    _regrade,
    use_edited_rubric,
)
from tests.app.regrade.test_cache import KNOWN_MISTAKE, POINTS_AND_FEEDBACK, SECRET, SLUG
from tests.app.regrade.test_fast import stored

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


# Each worker, once it has stored a batch, says so (a file named by its pid) and holds on
# until the CLI is gone.
HOLD = (
    "import time\n"
    "from app.regrade import batches\n"
    "real, cli = batches.rescore, os.getpid()\n"
    "def held(*args, **kwargs):\n"
    "    found = real(*args, **kwargs)\n"
    "    if os.getpid() != cli:\n"
    "        open(os.path.join(os.environ['HELD'], str(os.getpid())), 'w').close()\n"
    "        while os.getppid() == cli:\n"
    "            time.sleep(0.05)\n"
    "    return found\n"
    "batches.rescore = held\n"
)


def _env(url: str, workers: int, **more: str) -> dict[str, str]:
    return dict(
        os.environ,
        GRADEFORMER_DATABASE_URL=url,
        GRADEFORMER_WORKERS=str(workers),
        GRADEFORMER_REGRADE_BATCH="1",
        GRADEFORMER_CODE_INPUT_SECRET=SECRET,
        GRADEFORMER_RESULT_CACHE="true",
        OPENBLAS_NUM_THREADS="1",
        COLUMNS="200",
        **more,
    )


def _batched(tmp_path: Path, url: str, name: str, workers: int,
             **more: str) -> tuple[str, dict[str, Any]]:
    listing = tmp_path / f"{name}.json"
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(listing), "regrade", "--assignment", SLUG],
        cwd=REPO, env=_env(url, workers, **more), capture_output=True, text=True, timeout=600,
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


def test_the_cli_forks_workers_that_store_what_one_process_stores(tmp_path: Path) -> None:
    url, one_url = _edited_copies(tmp_path)
    two, forked = _batched(tmp_path, url, "two", workers=2)
    one, alone = _batched(tmp_path, one_url, "one", workers=1)
    assert forked["forks"] == 2 and alone["forks"] == 0
    for out in (two, one):
        assert "regraded 4 submissions of transformer-basics" in out, out
        assert "4 re-scored in place" in out and "0 sent to the grading processes" in out, out
    assert two.split("; ")[-1] == one.split("; ")[-1]  # "N scores changed"
    # Still no grading process and no migrations: the workers are forks of the CLI.
    assert _present(set(forked["modules"])) == []
    assert _stored(url) == _stored(one_url)


def _gone(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/status").read_text().split("State:")[1].split()[0] in "ZX"
    except (FileNotFoundError, IndexError):
        return True


def test_a_killed_cli_keeps_its_workers_batches_and_a_rerun_resumes(tmp_path: Path) -> None:
    url, one_url = _edited_copies(tmp_path)
    held = tmp_path / "held"
    held.mkdir()
    locks = set(Path(tempfile.gettempdir()).glob("gradeformer-regrade-*"))
    cli = subprocess.Popen(
        [sys.executable, "-c", RUN.replace("runpy.run_module", HOLD + "runpy.run_module"),
         str(tmp_path / "killed.json"), "regrade", "--assignment", SLUG],
        cwd=REPO, env=_env(url, 2, HELD=str(held)), stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 300
    while len(list(held.iterdir())) < 2 and time.monotonic() < deadline:
        assert cli.poll() is None
        time.sleep(0.05)
    workers = [int(p.name) for p in held.iterdir()]
    assert len(workers) == 2
    cli.send_signal(signal.SIGKILL)
    cli.wait(60)
    # Orphaned, the workers leave on their own (each after the batch it was in).
    while not all(_gone(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert all(_gone(pid) for pid in workers)
    # The workers' lock file was unlinked as soon as it was made: nothing is left behind.
    assert set(Path(tempfile.gettempdir()).glob("gradeformer-regrade-*")) == locks
    sessions = make_sessionmaker(make_engine(url))
    with unit_of_work(sessions) as session:
        job = session.scalars(select(RegradeJob).order_by(RegradeJob.id.desc())).first()
        assert job is not None
        assert (job.status, job.done) == ("running", 2)  # a batch stored by each worker
    sessions.kw["bind"].dispose()
    time.sleep(1.1)  # the killed CLI's lease ages
    again, _ = _batched(tmp_path, url, "again", 2, GRADEFORMER_REGRADE_STALE_SECONDS="1")
    assert "regraded 2 submissions" in again and "resumed job" in again, again
    _batched(tmp_path, one_url, "one", 1)
    fast_rows, one_rows = _stored(url), _stored(one_url)
    assert fast_rows == one_rows
