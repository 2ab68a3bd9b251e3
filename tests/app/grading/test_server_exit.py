"""The grading pools' fork server ends without finalizing its interpreter
(app/grading/server_exit.py, its first preload): exit handlers registered before it and the
modules' teardown are skipped in the server itself, never in a process forked from it."""

from __future__ import annotations

import subprocess
import sys

from app.grading.preload import BASE_PRELOAD, preload_modules

SCRIPT = """
import atexit, os, sys
atexit.register(lambda: print("finalized", os.getpid() == SERVER, flush=True))
SERVER = os.getpid()
import app.grading.server_exit
if sys.argv[1] == "fork":
    pid = os.fork()
    if pid == 0:
        sys.exit(0)  # a normal exit of a fork: its handlers run
    os.waitpid(pid, 0)
print("done", flush=True)
sys.exit(0)
"""


def _run(mode: str) -> list[str]:
    done = subprocess.run([sys.executable, "-c", SCRIPT, mode], capture_output=True,
                          text=True, timeout=60, check=True)
    return done.stdout.split("\n")[:-1]


def test_the_server_leaves_before_the_handlers_registered_before_it() -> None:
    assert _run("alone") == ["done"]


def test_a_fork_of_the_server_still_runs_its_handlers() -> None:
    assert _run("fork") == ["finalized False", "done"]


def test_every_fork_server_preloads_it_first() -> None:
    assert BASE_PRELOAD[0] == "app.grading.server_exit"
    for kinds in (None, (), ("code",)):
        assert preload_modules(kinds)[0] == "app.grading.server_exit"
