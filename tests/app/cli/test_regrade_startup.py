"""`gradeformer regrade` pays at start-up only for what it uses (issue #16, app/cli/ops.py).

A points-only change is re-scored in the CLI's own process (graders.cache.rescore): no grading
process, no fork server, no migrations; and, when the rubric has no written item, not the
written grader nor its embedding package either (the calibration service imports them only
where it uses them). The CLI runs in a real subprocess on a real SQLite
database; it writes the modules it imported when it exits.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys
from collections.abc import Collection
from pathlib import Path
from typing import Any

import pytest
import yaml
from sqlalchemy.orm import Session, sessionmaker
from typer.testing import CliRunner

from app.assignments.service import sync_rubric_dir
from app.cli import ops
from app.cli.main import app
from app.db.migrate import upgrade
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.regrade.runner import RegradeReport, run_regrade
from app.settings import get_settings
from app.submissions.service import accept
from app.submissions.upload import Upload
from graders.rubric import BUNDLED_RUBRICS
from tests.app.regrade.test_cache import DOCUMENTS, POINTS_AND_FEEDBACK, RUBRIC, SECRET, SLUG
from tests.shared_data import REPO

# What a regrade that sends nothing to the grading processes must not import: the migrations
# (only `serve` migrates) and the fork server the process pool starts.
NOT_NEEDED = ("alembic", "mako", "app.db.migrate", "multiprocessing.forkserver")
# What it must not import either when its rubric has no written item (parsing a rubric with one
# imports the written grader for its config model: that one is needed).
NOT_WRITTEN = ("graders.written", "graders.embedding")
NUMBERS = "numbers-only"
# Right, mistaken, missing and free-text answers; not the hostile one, whose endless loop
# is never cached (its code group goes to the grading processes again).
KEPT = (0, 1, 2, 4)
RUN = (
    "import atexit, json, runpy, sys\n"
    "out, sys.argv = sys.argv[1], ['gradeformer', *sys.argv[2:]]\n"
    "atexit.register(lambda: open(out, 'w').write(json.dumps(sorted(sys.modules))))\n"
    "runpy.run_module('app.cli.main', run_name='__main__', alter_sys=True)\n"
)


def regrade_env(url: str) -> dict[str, str]:
    """The environment of a real CLI regrade of the database at `url`, cache on."""
    return dict(
        os.environ,
        GRADEFORMER_DATABASE_URL=url,
        GRADEFORMER_WORKERS="1",
        GRADEFORMER_CODE_INPUT_SECRET=SECRET,
        GRADEFORMER_RESULT_CACHE="true",
        OPENBLAS_NUM_THREADS="1",
        COLUMNS="200",  # one line per message, whatever the terminal
    )


def _regrade(tmp_path: Path, url: str, name: str, slug: str = SLUG) -> tuple[str, set[str]]:
    env = regrade_env(url)
    listing = tmp_path / f"{name}.json"
    done = subprocess.run(
        [sys.executable, "-c", RUN, str(listing), "regrade", "--assignment", slug],
        cwd=REPO, env=env, capture_output=True, text=True, timeout=600, check=False,
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return " ".join(done.stdout.split()), set(json.loads(listing.read_text()))


def _database(
    tmp_path: Path, kept: Collection[int], rubrics: Path = BUNDLED_RUBRICS, slug: str = SLUG
) -> tuple[str, sessionmaker[Session]]:
    """A fresh SQLite database with the `rubrics` and the `kept` documents uploaded."""
    url = f"sqlite:///{tmp_path / 'g.db'}"
    upgrade(url)
    sessions = make_sessionmaker(make_engine(url))
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, rubrics)
        for number, (raw, name, ctype) in enumerate(DOCUMENTS):
            if number in kept:
                accept(session, slug, Upload(raw, name, ctype, f"s{number}"), None, 1 << 20)
    return url, sessions


def _present(modules: set[str], names: Collection[str] = NOT_NEEDED) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def _numbers_only(per_matrix_points: int) -> str:
    """The bundled rubric's numeric questions alone, as another assignment."""
    rubric = yaml.safe_load(RUBRIC)
    rubric["slug"], rubric["title"] = NUMBERS, "Numbers only"
    rubric["questions"] = [
        q for q in rubric["questions"] if {i["grader"] for i in q["items"]} == {"numeric"}
    ]
    assert rubric["questions"]
    for question in rubric["questions"]:
        for item in question["items"]:
            if item["id"] == "b1.per_matrix":
                item["points"] = per_matrix_points
    return yaml.safe_dump(rubric, sort_keys=False)


def test_a_points_only_regrade_starts_no_grading_process_and_no_migrations(
    tmp_path: Path,
) -> None:
    url, sessions = _database(tmp_path, KEPT)
    # Graded once by the grading processes: each stored run records its keys.
    first, first_modules = _regrade(tmp_path, url, "first")
    assert "regraded 4 submissions of transformer-basics" in first, first
    assert "multiprocessing.forkserver" in first_modules  # the listing sees a started pool

    use_edited_rubric(tmp_path, sessions, POINTS_AND_FEEDBACK)

    second, modules = _regrade(tmp_path, url, "second")
    assert "regraded 4 submissions of transformer-basics" in second, second
    assert "graders.cache.rescore" in modules  # the listing is the regrade's
    # No fork server: nothing went to a grading process, none was started.
    assert _present(modules) == []


def test_the_regrade_runs_with_start_up_frozen_and_leaves_the_collector_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # In-process (as the tests and any embedding caller run it): the freeze must not outlive
    # the command, or this process's garbage from before it would never be collected.
    url, sessions = _database(tmp_path, ())
    sessions.kw["bind"].dispose()
    monkeypatch.setenv("GRADEFORMER_DATABASE_URL", url)
    monkeypatch.setenv("GRADEFORMER_RESULT_CACHE", "false")
    get_settings.cache_clear()
    frozen_while_running: list[int] = []

    def run(*args: Any, **kwargs: Any) -> RegradeReport:
        frozen_while_running.append(gc.get_freeze_count())
        return run_regrade(*args, **kwargs)

    monkeypatch.setattr(ops, "run_regrade", run)
    before = gc.get_freeze_count()
    try:
        result = CliRunner().invoke(app, ["regrade", "--assignment", SLUG])
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, (result.output, result.exception)
    assert "regraded 0 submissions" in " ".join(result.output.split())
    assert frozen_while_running and frozen_while_running[0] > before
    assert gc.get_freeze_count() == before


def test_a_points_only_regrade_of_a_rubric_without_written_items_imports_no_written_grader(
    tmp_path: Path,
) -> None:
    rubrics = tmp_path / "rubrics"
    rubrics.mkdir()
    (rubrics / f"{NUMBERS}.yaml").write_text(_numbers_only(3))
    url, sessions = _database(tmp_path, (0, 1, 2), rubrics, NUMBERS)
    first, first_modules = _regrade(tmp_path, url, "first", NUMBERS)
    assert "regraded 3 submissions of numbers-only" in first, first
    assert "multiprocessing.forkserver" in first_modules  # graded by the grading processes

    (rubrics / f"{NUMBERS}.yaml").write_text(_numbers_only(4))  # a points-only change
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, rubrics)
    sessions.kw["bind"].dispose()

    second, modules = _regrade(tmp_path, url, "second", NUMBERS)
    assert "regraded 3 submissions of numbers-only" in second, second
    assert "graders.cache.rescore" in modules and "app.calibration.service" in modules
    assert _present(modules) == []
    assert _present(modules, NOT_WRITTEN) == []


def use_edited_rubric(tmp_path: Path, sessions: sessionmaker[Session],
                      edits: list[tuple[str, str]]) -> None:
    """The bundled rubric with `edits` applied made the assignment's current rubric (as an
    instructor's edit would), from a folder of its own; the engine's connections closed."""
    edited = RUBRIC
    for old, new in edits:
        assert old in edited
        edited = edited.replace(old, new)
    (tmp_path / "rubrics").mkdir()
    (tmp_path / "rubrics" / f"{SLUG}.yaml").write_text(edited)
    with unit_of_work(sessions) as session:
        sync_rubric_dir(session, tmp_path / "rubrics")
    sessions.kw["bind"].dispose()
