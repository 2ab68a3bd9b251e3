"""Rows' results of `grade-table` kept in a folder between runs (graders/written/table_rows.py).

One file per group (a question's answers in one table), written whole and atomically: two runs
at once each write their own temporary file and rename it, so a reader sees a whole file or
none; a torn or foreign file is a miss (the group is graded again).
"""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

# A group larger than this is not read (a stored group holds one table's answers to a question).
MAX_GROUP_BYTES = 64 * 1024 * 1024


class FolderRowStore:
    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _file(self, group: str) -> Path:
        return self.directory / group[:2] / f"{group}.json"

    def get(self, group: str) -> bytes | None:
        try:
            with self._file(group).open("rb") as handle:
                payload = handle.read(MAX_GROUP_BYTES + 1)
        except OSError:
            return None
        return payload if len(payload) <= MAX_GROUP_BYTES else None

    def put(self, group: str, payload: bytes) -> None:
        if len(payload) > MAX_GROUP_BYTES:
            return
        path = self._file(group)
        temporary = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            temporary.write_bytes(payload)
            os.replace(temporary, path)
        except OSError:  # the store is an optimisation: the results were written already
            with contextlib.suppress(OSError):
                temporary.unlink()
