"""The files beside a rubric that grading its items reads (a code battery, and the trusted Python
in its folder), kept with a loaded rubric version: grading then never depends on the folder the
rubric was loaded from.

They are read once, when a rubric is loaded (`take_files`), stored with the version as one
value (`RubricFiles.encode`), and written by each grading process into a read-only folder of its
own named by their content (`materialise`), where the batteries are read as from any folder.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import multiprocessing.util
import os
import shutil
import stat
import tempfile
from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path, PurePosixPath

from graders.registry import get_kind
from graders.rubric_model import LoadedRubric, RubricError

# What one folder of batteries may hold (its battery files and Python files, as read at load):
# a rubric's reference and known bugs are source code, a few kB to some tens of kB.
MAX_FOLDER_BYTES = 1_000_000
MAX_FOLDER_FILES = 100
FORMAT = "gradeformer-rubric-files/1"


@dataclass(frozen=True)
class RubricFiles:
    """The files as loaded: (path relative to the rubric's folder, POSIX, content), sorted."""

    files: tuple[tuple[str, bytes], ...]

    @cached_property
    def digest(self) -> str:
        hasher = hashlib.sha256(FORMAT.encode() + b"\0")
        for name, content in self.files:
            hasher.update(f"{name}\0{len(content)}\0".encode())
            hasher.update(content)
        return hasher.hexdigest()

    def listing(self) -> list[tuple[str, int, str]]:
        """Each file's path, size and sha256 (what staff see of a version's files)."""
        return [(name, len(content), hashlib.sha256(content).hexdigest())
                for name, content in self.files]

    def encode(self) -> bytes:
        """A header line (JSON: the paths and sizes) followed by the contents, in order."""
        header = json.dumps({"format": FORMAT,
                             "files": [[name, len(content)] for name, content in self.files]})
        return header.encode() + b"\n" + b"".join(content for _, content in self.files)

    @classmethod
    def decode(cls, data: bytes) -> RubricFiles:
        """The files of `encode`'s value; ValueError when it is not one."""
        head, newline, body = data.partition(b"\n")
        header = json.loads(head) if newline else None
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise ValueError("not a stored set of rubric files")
        files: list[tuple[str, bytes]] = []
        at = 0
        for entry in header.get("files", []):
            name, size = str(entry[0]), int(entry[1])
            files.append((safe_name(name), body[at:at + size]))
            at += size
        if at != len(body):
            raise ValueError("the stored rubric files are truncated or padded")
        return cls(tuple(files))


def safe_name(name: str) -> str:
    """`name` when it is a plain relative path (no root, no `..`, no empty part)."""
    parts = name.split("/")
    if not name or name.startswith("/") or any(p in ("", ".", "..") for p in parts):
        raise ValueError(f"{name!r} is not a path inside a rubric's folder")
    return name


def _is_safe(name: str) -> bool:
    try:
        safe_name(name)
    except ValueError:
        return False
    return True


def content_hash(text_hash: str, files: RubricFiles | None) -> str:
    """The hash that names a rubric version: its text's, or with files, the text's and theirs."""
    if files is None:
        return text_hash
    return hashlib.sha256(f"{text_hash}\0{files.digest}".encode()).hexdigest()


def take_files(loaded: LoadedRubric) -> RubricFiles | None:
    """The files the kinds of `loaded` read beside it (None: it names none), read now. A folder
    over `MAX_FOLDER_BYTES` or `MAX_FOLDER_FILES`, or one name that stands for two different
    files, is a RubricError of one line."""
    named: dict[str, set[Path]] = defaultdict(set)
    items = list(loaded.rubric.items())
    for kind in sorted({item.grader for item in items}):
        strategy = get_kind(kind)
        if strategy is not None:
            for name, path in strategy.rubric_files([i for i in items if i.grader == kind]):
                if not _is_safe(name):
                    raise RubricError(loaded.source, [f"battery file {name!r}: write its path "
                                                      "relative to the rubric's folder"])
                named[name].add(path)
    if not named:
        return None
    _check_sizes(loaded.source, named)
    files: list[tuple[str, bytes]] = []
    for name in sorted(named):
        contents = {_read(loaded.source, path) for path in named[name]}
        if len(contents) > 1:
            raise RubricError(loaded.source, [f"{name} stands for different files in the "
                                              "rubric's batteries; give them different names"])
        files.append((name, contents.pop()))
    return RubricFiles(tuple(files))


def _check_sizes(source: str, named: dict[str, set[Path]]) -> None:
    folders: dict[str, list[int]] = defaultdict(list)
    for name, paths in named.items():
        for path in paths:
            try:
                size = path.stat().st_size
            except OSError as exc:
                raise RubricError(source, [f"cannot read {name}: {exc.strerror}"]) from exc
            folders[str(PurePosixPath(name).parent)].append(size)
    for folder, sizes in sorted(folders.items()):
        if sum(sizes) > MAX_FOLDER_BYTES or len(sizes) > MAX_FOLDER_FILES:
            raise RubricError(source, [
                f"the battery folder {_where(folder)} holds {len(sizes)} battery and Python files, "
                f"{sum(sizes):,} bytes; a rubric version keeps at most {MAX_FOLDER_FILES} "
                f"files, {MAX_FOLDER_BYTES:,} bytes, per folder: move what its batteries do "
                "not read to another folder"])


def _where(folder: str) -> str:
    return "(the rubric's own folder)" if folder == "." else repr(folder)


def _read(source: str, path: Path) -> bytes:
    try:
        with path.open("rb") as fh:
            content = fh.read(MAX_FOLDER_BYTES + 1)
    except OSError as exc:
        raise RubricError(source, [f"cannot read {path.name}: {exc.strerror}"]) from exc
    if len(content) > MAX_FOLDER_BYTES:  # grew since its size was read
        raise RubricError(source, [f"{path.name} is over {MAX_FOLDER_BYTES:,} bytes"])
    return content


_root: tuple[int, Path] | None = None


def _private_root() -> Path:
    """This process's folder of materialised files (a forked process makes its own), in a
    folder of the user's under the temporary folder, where the folders of processes that are
    gone (killed, or ended by `os._exit`) are removed by the next process that makes one."""
    global _root
    if _root is None or _root[0] != os.getpid():
        parent = _user_folder()
        prefix = f"{os.getpid()}-" if parent else f"gradeformer-rubric-files-{os.getpid()}-"
        path = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))  # mode 0700
        # Run at the exit of the main process and of multiprocessing's processes alike.
        multiprocessing.util.Finalize(None, _remove, args=(os.getpid(), path), exitpriority=0)
        if parent is not None:
            sweep(parent)
        _root = (os.getpid(), path)
    return _root[1]


def _user_folder() -> Path | None:
    """`gradeformer-rubric-files-<uid>` in the temporary folder, when it is this user's alone
    (else None: each process then makes a folder of its own there)."""
    folder = Path(tempfile.gettempdir()) / f"gradeformer-rubric-files-{os.getuid()}"
    try:
        folder.mkdir(mode=0o700, exist_ok=True)
        found = folder.lstat()
    except OSError:
        return None
    ours = stat.S_ISDIR(found.st_mode) and found.st_uid == os.getuid()
    return folder if ours and not found.st_mode & 0o077 else None


def sweep(parent: Path) -> None:
    """Remove the folders in `parent` whose process (the number their name starts with) is
    gone."""
    for entry in parent.iterdir():
        owner = entry.name.split("-", 1)[0]
        if owner.isdigit() and not _alive(int(owner)):
            _remove(os.getpid(), entry)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # another user's process with that number
    return True


def _remove(owner: int, path: Path) -> None:
    if os.getpid() != owner:  # a forked process inherited the finalizer, not the folder
        return
    for folder, _dirs, _files in os.walk(path):
        with contextlib.suppress(OSError):  # removed meanwhile by another process's sweep
            os.chmod(folder, stat.S_IRWXU)
    shutil.rmtree(path, ignore_errors=True)


def materialise(files: RubricFiles, root: Path | None = None) -> Path:
    """The folder holding `files`, read-only, named by their digest (written on first use)."""
    root = root if root is not None else _private_root()
    folder = root / files.digest
    if folder.is_dir():
        return folder
    staging = Path(tempfile.mkdtemp(dir=root, prefix=".staging-"))
    for name, content in files.files:
        path = staging.joinpath(*safe_name(name).split("/"))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content)
        path.chmod(0o444)
    for where, _dirs, _files in os.walk(staging, topdown=False):
        os.chmod(where, 0o555)
    try:
        staging.rename(folder)
    except OSError:  # written meanwhile by another thread: theirs is the same content
        _remove(os.getpid(), staging)
        if not folder.is_dir():
            raise
    return folder
