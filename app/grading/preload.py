"""What a grading pool's fork server imports before it forks the grading processes, and how it
ends (measured in docs/benchmarks.md, issue #32's fifth to seventh sittings).

Each grading process forks from a multiprocessing fork server (app/grading/processes.py) and
inherits what the server imported. So the server imports what grading needs, for the kinds the
pool grades: `import`, `submit` and a regrade read their rubric's first; a server grades any.

`import` and `submit` start the server from the program's entry point, before their own imports
(`start_fork_server_now`): it imports what every grading process needs and the code kind's
modules, named by the server itself (app/grading/command_preload.py) so that the command need
not import the kind registry first. Other kinds' modules are imported by each grading process.

This module is every server's first preload: imported there (and only there) it registers an
exit handler that ends the server without tearing its interpreter down: finalizing the
preloaded graders took 50-120 ms after the command had exited, holding the output streams a
caller waits on. Nothing of the server's needs finalizing: it writes nothing of its own, and its
grading processes end by `os._exit`.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
from collections.abc import Iterable
from multiprocessing.context import ForkServerContext
from types import FrameType

# The kinds `import` and `submit` preload before they know their rubric's (see above).
COMMAND_KINDS = ("code",)
# What every grading process imports before its first document, whatever it grades: the
# worker; the upload checks' document reader, which forks from the same server (its PDF
# library too); the answer locator every document but a JSON one needs. First, this module:
# what lets the server end without a finalization its caller would wait for (above).
BASE_PRELOAD = ("app.grading.preload", "app.grading.worker", "app.submissions.decoding",
                "pypdf", "graders.documents.locate")
# What `import` and `submit` start their server with: BASE_PRELOAD but the document reader
# (the commands read their uploads themselves, app/submissions/service.py `prepare`), then
# COMMAND_KINDS' modules, named by the server itself (app/grading/command_preload.py).
COMMAND_PRELOAD = (*(name for name in BASE_PRELOAD if name != "app.submissions.decoding"),
                   "app.grading.command_preload")


# One BLAS thread per grading process: N processes on N cores, each spinning extra BLAS threads,
# measured 2-3x slower than single-threaded workers on the 2-core target machine.
SINGLE_THREADED = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def fork_server(kinds: Iterable[str] | None = None) -> ForkServerContext:
    """The fork server's context, to import what grading `kinds` needs when it starts (None:
    every kind). Only the first preload counts: the server then runs for the process's life."""
    return _server(preload_modules(kinds))


def start_fork_server_now() -> None:
    """Start the fork server now, importing what every grading process of a command needs and
    what the code kind needs (COMMAND_PRELOAD), while this process goes on with its own
    imports. Only the first call starts one; the pools the command makes later fork from it."""
    from multiprocessing import forkserver

    _server(list(COMMAND_PRELOAD))
    forkserver.ensure_running()


def _server(preload: list[str]) -> ForkServerContext:
    """The fork server's context, with its preload and one BLAS thread per process."""
    import multiprocessing

    for name in SINGLE_THREADED:
        os.environ.setdefault(name, "1")  # inherited by the server, hence by every process
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(preload)
    return context


def preload_modules(kinds: Iterable[str] | None = None) -> list[str]:
    """What the fork server imports before it forks processes that grade items of `kinds`
    (None: every kind, for a server that grades any assignment): each kind's grader and what
    it needs on first use (`Kind.preload`), imported once there instead of once per process on
    its first document. A rubric of code items does not import the written grader's model."""
    if kinds is not None and not kinds:  # no kind's modules: the registry is not imported
        return list(BASE_PRELOAD)
    return [*BASE_PRELOAD, *(name for name in kind_modules(kinds) if name not in BASE_PRELOAD)]


def kind_modules(kinds: Iterable[str] | None = None) -> list[str]:
    """What the graders of `kinds` (None: every kind) import first (`Kind.preload_modules`),
    each once, in the kinds' order."""
    from graders.registry import KINDS, get_kind

    names: list[str] = []
    for kind in sorted(KINDS) if kinds is None else sorted(set(kinds)):
        strategy = get_kind(kind)
        if strategy is not None:
            names += [name for name in strategy.preload_modules() if name not in names]
    return names


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
