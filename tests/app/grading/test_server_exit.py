"""The grading pools' fork server ends without finalizing its interpreter
(app/grading/preload.py, its first preload): exit handlers registered before it are
skipped in the server; imported anywhere else, it changes nothing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from app.grading.preload import BASE_PRELOAD, preload_modules

REPO = Path(__file__).resolve().parents[3]
SERVER = """
import multiprocessing, sys
from multiprocessing import forkserver
context = multiprocessing.get_context("forkserver")
context.set_forkserver_preload(sys.argv[1].split(","))
forkserver.ensure_running()
process = context.Process(target=print, args=("graded",))
process.start()
process.join()
sys.exit(process.exitcode)
"""


def _server_marks(preload: str, marker: Path) -> bool:
    """Whether a fork server with `preload` ran its exit handlers when its client ended. The
    server holds the client's stdout: reading it to its end waits for the server's exit."""
    env = dict(os.environ, GRADEFORMER_TEST_EXIT_MARKER=str(marker))
    done = subprocess.run([sys.executable, "-c", SERVER, preload], capture_output=True,
                          text=True, timeout=120, env=env, cwd=REPO, check=True)
    assert done.stdout.strip() == "graded"
    return marker.exists()


def test_the_fork_server_skips_the_handlers_registered_before_it(tmp_path: Path) -> None:
    assert _server_marks("tests.app.grading.exit_marker", tmp_path / "plain")
    assert not _server_marks("tests.app.grading.exit_marker,app.grading.preload",
                             tmp_path / "cut")


def test_imported_elsewhere_it_changes_nothing() -> None:
    code = ("import atexit, sys\n"
            "atexit.register(lambda: print('finalized', flush=True))\n"
            "import app.grading.preload\n"
            "sys.exit(3)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60, cwd=REPO, check=False)
    assert (done.returncode, done.stdout) == (3, "finalized\n")


def test_every_fork_server_preloads_it_first() -> None:
    assert BASE_PRELOAD[0] == "app.grading.preload"
    for kinds in (None, (), ("code",)):
        assert preload_modules(kinds)[0] == "app.grading.preload"
