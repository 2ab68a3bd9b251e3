"""What a code group's results depend on besides the rubric and the answer: its batteries' files
(the YAML, the reference and known bugs module and whatever Python sits beside it), named by
the battery names the rubric writes and the files' contents, not by where the install lives."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Sequence
from pathlib import Path, PurePosixPath

from graders.code.config import item_config
from graders.rubric_model import RubricItem

RECHECK_S = 1.0  # battery files are looked at again after this long

_files: dict[tuple[str, int, int], str] = {}
_environments: dict[tuple[tuple[str, str], ...], tuple[float, str]] = {}
_lock = threading.Lock()


def _file_digest(path: Path) -> str:
    stat = path.stat()
    memo = (str(path), stat.st_mtime_ns, stat.st_size)
    with _lock:
        found = _files.get(memo)
    if found is None:
        found = hashlib.sha256(path.read_bytes()).hexdigest()
        with _lock:
            _files[memo] = found
    return found


def _python_beside(battery: Path) -> list[Path]:
    """The Python files in a battery's folder: its module (reference and known bugs) and
    whatever that module may import or read. The other batteries' YAML files beside it are
    read only by their own batteries: adding or editing one leaves this battery's key alone."""
    return [p for p in battery.parent.iterdir() if p.is_file() and p.suffix == ".py"]


def batteries_digest(names: Sequence[tuple[str, str]]) -> str:
    """Each (battery name, path) with the digests of its file and the Python beside it."""
    parts: list[str] = []
    for name, where in names:
        try:
            battery = Path(where)
            files = sorted({battery, *_python_beside(battery)})
            parts.append(name + "=" + ",".join(f"{p.name}:{_file_digest(p)}" for p in files))
        except (OSError, ValueError):
            parts.append(name + "=unreadable")
    return ";".join(parts)


def battery_environment(items: Sequence[RubricItem]) -> str:
    """The batteries of `items` as one string: each name with its files' digests."""
    names = tuple(sorted({(item_config(i).battery, str(item_config(i).path)) for i in items}))
    now = time.monotonic()
    with _lock:
        seen = _environments.get(names)
    if seen is not None and now - seen[0] < RECHECK_S:
        return seen[1]
    found = batteries_digest(names)
    with _lock:
        _environments[names] = (now, found)
    return found


def battery_files(items: Sequence[RubricItem]) -> list[tuple[str, Path]]:
    """What `batteries_digest` covers for `items`, as the files a loaded rubric version keeps:
    each battery under the name the rubric writes (relative to the rubric's folder), and the
    Python beside the file it resolves to, under the same folder name."""
    found: list[tuple[str, Path]] = []
    for config in {item_config(item).path: item_config(item) for item in items}.values():
        name = PurePosixPath(os.path.normpath(config.battery).replace(os.sep, "/"))
        found.append((str(name), config.path))
        found.extend((str(name.parent / p.name), p) for p in _python_beside(config.path))
    return found
