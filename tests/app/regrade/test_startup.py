"""What `gradeformer regrade` spends before its workers start and while they run (issue #16).

A points-only regrade on SQLite never loads the PostgreSQL dialect (the calibration snapshot
imports it only to write to PostgreSQL); the command's imports and the rubric's grader modules
load with the collector paused (nor does it walk them afterwards); the progress bar is redrawn
by a thread only where a redraw shows (a terminal); the install compiles the project's modules
once; and the program ends without a last collection of everything it holds.
"""

from __future__ import annotations

import gc
import io
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, ProgressColumn, TextColumn
from sqlalchemy.orm import Session, sessionmaker
from typer.testing import CliRunner

from app.cli import context, ops
from app.cli import program as cli_program
from app.db.migrate import upgrade
from app.settings import get_settings
from tests.app.cli.test_regrade_startup import (
    KEPT,
    _database,
    _present,
    _regrade,
    use_edited_rubric,
)
from tests.app.regrade.test_cache import POINTS_AND_FEEDBACK, RUBRIC, SLUG

REPO = Path(__file__).resolve().parents[3]
POSTGRESQL = ("sqlalchemy.dialects.postgresql",)


def _points_only(tmp_path: Path, sessions: sessionmaker[Session]) -> None:
    use_edited_rubric(tmp_path, sessions, POINTS_AND_FEEDBACK)


def test_a_points_only_regrade_on_sqlite_of_written_and_code_items_loads_no_postgresql(
    tmp_path: Path,
) -> None:
    kinds = {item["grader"] for q in yaml.safe_load(RUBRIC)["questions"] for item in q["items"]}
    assert {"written", "code", "numeric"} <= kinds
    url, sessions = _database(tmp_path, KEPT)
    first, _ = _regrade(tmp_path, url, "first")
    assert "regraded 4 submissions of transformer-basics" in first, first
    _points_only(tmp_path, sessions)

    second, modules = _regrade(tmp_path, url, "second")
    assert "regraded 4 submissions of transformer-basics" in second, second
    assert "0 sent to the grading processes" in second, second  # all re-scored in the CLI
    # The calibration service ran (it may store a snapshot): without the PostgreSQL dialect.
    assert "app.calibration.service" in modules and "sqlalchemy.dialects.sqlite" in modules
    assert _present(modules, POSTGRESQL) == []


def _render(console: Console, auto_refresh: bool | None) -> str:
    """A progress bar that advances slower than its refresh rate, as the regrade's does."""
    columns: tuple[ProgressColumn, ...] = (
        TextColumn("[progress.description]{task.description}"), BarColumn(),
        MofNCompleteColumn(),
    )
    with (ops._progress(columns) if auto_refresh is None
          else ops.Progress(*columns, console=console, auto_refresh=auto_refresh)) as progress:
        task = progress.add_task("regrading", total=None)
        for _ in range(3):
            progress.update(task, total=30, advance=10)
            time.sleep(0.3)  # past the refresh period (0.1 s)
        console.print("a line meanwhile")
    return console.file.getvalue()  # type: ignore[attr-defined]


def test_off_a_terminal_the_progress_bar_has_no_refresh_thread_and_shows_the_same(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    threaded = _render(Console(file=io.StringIO(), width=100), auto_refresh=True)
    plain = Console(file=io.StringIO(), width=100)
    assert not plain.is_terminal
    monkeypatch.setattr(ops, "errors", plain)
    assert not ops._progress(()).live.auto_refresh
    assert _render(plain, auto_refresh=None) == threaded
    assert re.search(r"regrading .* 30/30", threaded)


def test_on_a_terminal_the_progress_bar_is_redrawn_by_its_thread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(ops, "errors", Console(file=io.StringIO(), force_terminal=True))
    assert ops._progress(()).live.auto_refresh


@pytest.fixture
def collector() -> Iterator[None]:
    enabled = gc.isenabled()
    yield
    if enabled:
        gc.enable()
    else:
        gc.disable()


@pytest.mark.usefixtures("collector")
@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_paused_and_left_as_it_was(enabled: bool) -> None:
    if enabled:
        gc.enable()
    else:
        gc.disable()
    with context.collector_paused():
        assert not gc.isenabled()
    assert gc.isenabled() == enabled
    with pytest.raises(RuntimeError), context.collector_paused():
        raise RuntimeError
    assert gc.isenabled() == enabled


@pytest.mark.usefixtures("collector")
def test_what_the_pause_allocated_joins_the_oldest_objects_without_a_pass() -> None:
    gc.enable()
    passes: list[str] = []

    def seen(phase: str, _: object) -> None:
        passes.append(phase)

    gc.callbacks.append(seen)
    try:
        with context.collector_paused():
            built = [[n] for n in range(10_000)]  # well past a young generation's threshold
        assert passes == [] and gc.get_freeze_count() == 0
        assert any(found is built for found in gc.get_objects(generation=2))
        with context.startup_frozen():  # (ops.regrade): what the pause adds is frozen with it
            frozen = gc.get_freeze_count()
            with context.collector_paused():
                more = [[n] for n in range(10_000)]
            assert gc.get_freeze_count() >= frozen + len(more)
        assert gc.get_freeze_count() == 0
    finally:
        gc.callbacks.remove(seen)


@pytest.mark.usefixtures("collector")
def test_a_command_is_imported_with_the_collector_paused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gc.enable()
    seen: list[bool] = []
    real = cli_program.importlib.import_module

    def import_module(name: str) -> object:
        seen.append(gc.isenabled())
        return real(name)

    monkeypatch.setattr(cli_program.importlib, "import_module", import_module)
    assert cli_program.load_command("export") is not None
    assert seen == [False] and gc.isenabled()


@pytest.mark.usefixtures("collector")
def test_the_regrade_claims_its_job_with_the_collector_paused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The claim reads (and so imports the grader modules of) the rubric.
    gc.enable()
    seen: list[bool] = []

    class Stop(Exception):
        pass

    def claim(*_: object) -> None:
        seen.append(gc.isenabled())
        raise Stop

    url = f"sqlite:///{tmp_path / 'g.db'}"
    upgrade(url)
    monkeypatch.setenv("GRADEFORMER_DATABASE_URL", url)
    get_settings.cache_clear()
    monkeypatch.setattr(ops.jobs, "claim", claim)
    try:
        with pytest.raises(Stop):
            ops.regrade(SLUG)
    finally:
        get_settings.cache_clear()
    assert seen == [False] and gc.isenabled()


def test_the_install_compiles_the_project_once() -> None:
    # Read even with PYTHONDONTWRITEBYTECODE set: no command compiles them again at its start.
    makefile = (REPO / "Makefile").read_text()
    compile_step = re.search(r"^COMPILE := (.+)$", makefile, re.MULTILINE)
    assert compile_step is not None and "compileall" in compile_step.group(1)
    assert "app graders" in compile_step.group(1)
    for target in ("$(VENV)/.installed:", "$(VENV)/.installed-dev:"):
        recipe = makefile.split(target, 1)[1].split("\n\n", 1)[0]
        assert "\t$(COMPILE)\n" in recipe, target
    dockerfile = (REPO / "Dockerfile").read_text()
    # the image installs the project in place (alembic finds migrations/ beside it) and
    # compiles it once, at build
    assert re.search(r"^RUN \S*python -m compileall -q app graders", dockerfile, re.MULTILINE)


EXIT = (
    "import atexit, gc, runpy, sys\n"
    "out, sys.argv = sys.argv[1], ['gradeformer', *sys.argv[2:]]\n"
    # Registered before the program's: runs after its handlers, as the interpreter finalizes.
    "atexit.register(lambda: open(out, 'w').write(str(gc.get_freeze_count())))\n"
    "runpy.run_module('app.cli.main', run_name='__main__', alter_sys=True)\n"
)


def test_the_program_ends_with_its_objects_frozen(tmp_path: Path) -> None:
    # Its last collection would walk them all only to free memory the system takes back.
    count = tmp_path / "frozen"
    # (a command's help: the program's own is printed without typer, app/cli/help.py)
    done = subprocess.run([sys.executable, "-c", EXIT, str(count), "rubric", "--help"],
                          cwd=REPO, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "validate" in done.stdout  # the help was written out in full
    assert int(count.read_text()) > 1000


def test_commands_invoked_in_a_process_that_goes_on_freeze_nothing_at_its_exit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    registered: list[object] = []
    monkeypatch.setattr(cli_program.atexit, "register", registered.append)
    result = CliRunner().invoke(cli_program.app, ["--help"])
    assert result.exit_code == 0 and "regrade" in result.output
    assert registered == []
