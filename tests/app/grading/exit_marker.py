"""A fork-server preload for tests/app/grading/test_server_exit.py: an exit handler that
writes the file named by GRADEFORMER_TEST_EXIT_MARKER when the process finalizes."""

from __future__ import annotations

import atexit
import os
from pathlib import Path

_PATH = os.environ.get("GRADEFORMER_TEST_EXIT_MARKER")


def _mark() -> None:
    if _PATH:
        Path(_PATH).write_text(str(os.getpid()))


atexit.register(_mark)
