"""The files a zygote copies into its private root: the interpreter, the standard library,
NumPy and the shared libraries they load, and nothing else.

Bind-mounting live host directories would let a job watch the host through them (inotify on
files the host opens, page-cache residency and eviction of shared libraries, flock on a file a
host process also locks) and let two concurrent jobs signal each other through the same files.
A private tmpfs copy per zygote, from which the zygote re-executes its interpreter, shares no
file, inode or page-cache page with the host or with any other zygote. The plan is computed once
per process; the zygote does the copying, once when it starts.
"""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

# Parts of the standard library no attention code needs, which would only add size (and, for
# tkinter, the X libraries): the test suite, GUIs, installers, the build configuration.
STDLIB_SKIPPED = frozenset({"site-packages", "test", "tests", "idlelib", "tkinter", "turtledemo",
                            "ensurepip", "lib2to3", "__phello__", "pydoc_data"})
NUMPY_SKIPPED = frozenset({"tests", "include", "f2py", "_pyinstaller"})
SKIPPED_SUFFIXES = (".pyi", ".pxd", ".h", ".c", ".a", ".opt-1.pyc", ".opt-2.pyc", ".txt", ".md")
MAX_LINK_DEPTH = 16


@dataclass
class RootPlan:
    """What a zygote's private root holds, all at the same absolute paths as on the host."""

    executable: str  # the real interpreter binary the zygote re-executes
    sys_path: list[str]  # appended to the zygote's import path (site-packages, lib-dynload)
    dirs: set[str] = field(default_factory=set)
    files: set[str] = field(default_factory=set)
    symlinks: dict[str, str] = field(default_factory=dict)
    size: int = 0

    def as_config(self) -> dict[str, object]:
        return {"dirs": sorted(self.dirs), "files": sorted(self.files),
                "symlinks": sorted(self.symlinks.items()), "executable": self.executable}

    def describe(self) -> str:
        return (f"{len(self.files)} files, {self.size / (1 << 20):.0f} MiB: the interpreter, "
                "its standard library, NumPy and their shared libraries")


def _add(plan: RootPlan, path: str, depth: int = 0) -> None:
    """Add `path` with every symbolic link on the way to it (recreated as links)."""
    if depth > MAX_LINK_DEPTH:
        return
    parts = Path(path).parts
    current = Path("/")
    for index, part in enumerate(parts[1:], start=1):
        current = current / part
        if current.is_symlink():
            target = os.readlink(current)
            plan.symlinks[str(current)] = target
            plan.dirs.add(str(current.parent))
            resolved = Path(os.path.normpath(current.parent / target))
            _add(plan, str(resolved.joinpath(*parts[index + 1:])), depth + 1)
            return
    if current.is_dir():
        plan.dirs.add(str(current))
    elif current.is_file() and str(current) not in plan.files:
        plan.files.add(str(current))
        plan.dirs.add(str(current.parent))
        plan.size += current.stat().st_size


def _add_tree(plan: RootPlan, top: Path, skipped: frozenset[str]) -> None:
    for directory, subdirs, files in os.walk(top):
        subdirs[:] = [d for d in subdirs if d not in skipped]
        plan.dirs.add(directory)
        for name in files:
            if not name.endswith(SKIPPED_SUFFIXES) and name != "_tkinter" and \
                    not name.startswith("_tkinter."):
                _add(plan, os.path.join(directory, name))


def _shared_libraries(objects: list[str]) -> set[str]:
    """What the dynamic loader resolves for these ELF objects (ldd, one call for all); when
    ldd is missing, the libraries this process has mapped."""
    found: set[str] = set()
    try:
        done = subprocess.run(["ldd", *objects], capture_output=True, text=True, timeout=60,
                              check=False)
        for line in done.stdout.splitlines():
            for word in line.split():
                if word.startswith("/") and ".so" in word:
                    found.add(os.path.normpath(word.rstrip(":")))
    except (OSError, subprocess.SubprocessError):
        pass
    if not found:
        with open("/proc/self/maps") as maps:
            for line in maps:
                path = line.split()[-1]
                if path.startswith("/") and ".so" in os.path.basename(path):
                    found.add(path)
    return {path for path in found if path not in objects}


@cache
def root_plan() -> RootPlan:
    numpy_dir = Path(np.__file__).resolve().parent
    site_dir = numpy_dir.parent
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    executable = os.path.realpath(sys.executable)
    plan = RootPlan(executable=executable, sys_path=[str(site_dir), str(stdlib / "lib-dynload")])
    _add(plan, executable)
    _add_tree(plan, stdlib, STDLIB_SKIPPED)
    _add_tree(plan, numpy_dir, NUMPY_SKIPPED)
    libs = site_dir / "numpy.libs"
    if libs.is_dir():
        _add_tree(plan, libs, frozenset())
    objects = [executable, *sorted(f for f in plan.files if ".so" in os.path.basename(f))]
    for library in sorted(_shared_libraries(objects)):
        _add(plan, library)
    # Directories only reached through a link still need their parents.
    for path in list(plan.dirs):
        for parent in Path(path).parents:
            plan.dirs.add(str(parent))
    plan.dirs.discard("/")
    return plan
