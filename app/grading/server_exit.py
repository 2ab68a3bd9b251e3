"""Imported by the grading pools' fork server alone (first of its preloads, app/grading/
preload.py): the server then ends without tearing its interpreter down.

The server ends with the process that started it (its last client gone). By then it holds
every preloaded grader's modules, and the interpreter's finalization (a last collection over
all their objects, then each module torn down) took 50-120 ms after the command itself had
exited, all the while holding the standard output and error it inherited: a caller reading
the command's output (a script, `subprocess.run`) waited for it. Nothing of the server's
needs finalizing: it writes nothing of its own and keeps no files, and its grading processes
end by `os._exit` without running exit handlers, so they never run this one.

Imported anywhere else (by mistake, or by a tool that imports every module) it does nothing:
the handler is registered only when the import is the fork server's preload."""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
from types import FrameType

_SERVER = os.getpid()


def _preloaded_by_fork_server() -> bool:
    """Whether this import runs inside multiprocessing's fork server loop (`main`)."""
    frame: FrameType | None = sys._getframe(1)
    while frame is not None:
        if (frame.f_code.co_name == "main"
                and frame.f_globals.get("__name__") == "multiprocessing.forkserver"):
            return True
        frame = frame.f_back
    return False


def _leave() -> None:
    if os.getpid() != _SERVER:  # a fork that did run exit handlers: not ours to cut short
        return
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(0)


if _preloaded_by_fork_server():
    atexit.register(_leave)
