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

import mmap
import os
import stat
import struct
import subprocess
import sys
import sysconfig
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

# Parts of the standard library no attention code needs, which would only add size (and, for
# tkinter, the X libraries): the test suite, GUIs, installers and build tools, the build
# configuration (config-3.X-...), packages whose extension module is left out (below) or that
# serve a network the sandbox has none of.
STDLIB_SKIPPED = frozenset({"site-packages", "test", "tests", "idlelib", "tkinter", "turtledemo",
                            "ensurepip", "lib2to3", "__phello__", "pydoc_data", "distutils",
                            "venv", "sqlite3", "curses", "wsgiref", "xmlrpc"})
SKIPPED_PREFIXES = ("config-",)
# numpy.f2py stays (0.5 MiB of Python): `from numpy import *` loads it.
NUMPY_SKIPPED = frozenset({"tests", "include", "_pyinstaller", "distutils"})
# Extension modules a student's NumPy program has no use for in the sandbox, which (with the
# shared libraries only they load, OpenSSL's 5 MiB among them) every zygote would copy: the
# test modules of CPython and NumPy (NumPy's SIMD test module alone is 1.5 MiB); TLS (no
# network; hashlib and hmac fall back to CPython's built-in hashes without _hashlib);
# SQLite; terminals and line editing (no terminal); the user, password and NIS databases (no
# /etc); sound devices (no /dev). Importing one fails as a missing module does.
SKIPPED_EXTENSIONS = frozenset({
    "_testcapi", "_testinternalcapi", "_testbuffer", "_testmultiphase", "_testimportmultiple",
    "_testclinic", "_ctypes_test", "_xxtestfuzz", "xxlimited", "xxlimited_35", "_simd",
    "_multiarray_tests", "_rational_tests", "_umath_tests", "_struct_ufunc_tests",
    "_operand_flag_tests", "_ssl", "_hashlib", "_sqlite3", "readline", "_curses",
    "_curses_panel", "_dbm", "_gdbm", "nis", "spwd", "_crypt", "ossaudiodev", "_tkinter"})
SKIPPED_SUFFIXES = (".pyi", ".pxd", ".h", ".c", ".a", ".opt-1.pyc", ".opt-2.pyc", ".txt", ".md")
# Imported only by `site`, which the zygote never runs (-S); Debian's Python links its
# sitecustomize.py to /etc/python3.X, which would otherwise bring /etc into the root.
SKIPPED_FILES = frozenset({"sitecustomize.py", "usercustomize.py"})
MAX_LINK_DEPTH = 16
PT_LOAD, PT_DYNAMIC, PT_INTERP = 1, 2, 3
DT_NEEDED, DT_STRTAB, DT_RPATH, DT_RUNPATH = 1, 5, 15, 29


@dataclass
class RootPlan:
    """What a zygote's private root holds, all at the same absolute paths as on the host."""

    executable: str  # the real interpreter binary the zygote re-executes
    sys_path: list[str]  # appended to the zygote's import path (site-packages, lib-dynload)
    dirs: set[str] = field(default_factory=set)
    files: set[str] = field(default_factory=set)
    symlinks: dict[str, str] = field(default_factory=dict)
    # ELF objects copied only as far as the dynamic loader reads them (`loaded_extent`).
    lengths: dict[str, int] = field(default_factory=dict)
    size: int = 0

    def as_config(self) -> dict[str, object]:
        return {"dirs": sorted(self.dirs), "files": sorted(self.files),
                "symlinks": sorted(self.symlinks.items()), "executable": self.executable,
                "lengths": sorted(self.lengths.items())}

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
    """A resolved directory's files: os.walk follows no link, so only a file itself can be
    one (and only those need the walk along their path)."""
    for directory, subdirs, files in os.walk(top):
        subdirs[:] = [d for d in subdirs
                      if d not in skipped and not d.startswith(SKIPPED_PREFIXES)]
        plan.dirs.add(directory)
        for name in files:
            if (name.endswith(SKIPPED_SUFFIXES) or name in SKIPPED_FILES
                    or (".so" in name and name.split(".", 1)[0] in SKIPPED_EXTENSIONS)):
                continue
            path = os.path.join(directory, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                _add(plan, path)
            elif stat.S_ISREG(info.st_mode) and path not in plan.files:
                plan.files.add(path)
                plan.size += info.st_size


def _dynamic_section(path: str) -> tuple[str, list[str], list[str]] | None:
    """An ELF64 little-endian object's program interpreter, DT_NEEDED names and search path
    (RPATH/RUNPATH with $ORIGIN expanded); None for anything else."""
    data = _mapped(path)  # only the headers and the dynamic section are ever touched
    if data is None:
        return None
    with data:
        return _parse_dynamic(data, path)


def _mapped(path: str) -> mmap.mmap | None:
    """The file mapped read-only (a page is read only when touched); None if it cannot be."""
    try:
        with open(path, "rb") as fh:
            return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None


def _parse_dynamic(data: mmap.mmap, path: str) -> tuple[str, list[str], list[str]] | None:
    if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        return None
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    loads: list[tuple[int, int, int]] = []
    dynamic = interp = None
    for index in range(phnum):
        kind, _, offset, vaddr, _, filesz, _, _ = struct.unpack_from(
            "<IIQQQQQQ", data, phoff + index * phentsize)
        if kind == PT_LOAD:
            loads.append((vaddr, offset, filesz))
        elif kind == PT_DYNAMIC:
            dynamic = (offset, filesz)
        elif kind == PT_INTERP:
            interp = data[offset:offset + filesz].rstrip(b"\0").decode()
    if dynamic is None:
        return interp or "", [], []
    entries = [struct.unpack_from("<qQ", data, dynamic[0] + i)
               for i in range(0, dynamic[1], 16)]
    strtab = next((v for tag, v in entries if tag == DT_STRTAB), None)
    base = next((off + strtab - va for va, off, size in loads
                 if strtab is not None and va <= strtab < va + size), None)
    if base is None:
        return None

    def string(at: int) -> str:
        return data[base + at:data.find(b"\0", base + at)].decode()

    needed = [string(v) for tag, v in entries if tag == DT_NEEDED]
    origin = os.path.dirname(os.path.realpath(path))
    search = [d.replace("$ORIGIN", origin).replace("${ORIGIN}", origin)
              for tag, v in entries if tag in (DT_RPATH, DT_RUNPATH) for d in string(v).split(":")]
    return interp or "", needed, search


def loaded_extent(path: str) -> int | None:
    """How much of an ELF64 little-endian file the dynamic loader reads: its header, its
    program headers and every segment's file bytes. What lies beyond (the symbol table, the
    debugging information: 17 of a pyenv libpython's 22 MiB; the section headers) only
    debuggers and linkers read, never a running program. None for anything else."""
    data = _mapped(path)
    if data is None:
        return None
    with data:
        if len(data) < 64 or data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
            return None
        phoff, = struct.unpack_from("<Q", data, 32)
        phentsize, phnum = struct.unpack_from("<HH", data, 54)
        extent = max(64, phoff + phentsize * phnum)
        if extent > len(data) or phentsize < 56:
            return None
        for index in range(phnum):
            # p_offset and p_filesz (after p_type, p_flags; p_vaddr, p_paddr between)
            offset, filesz = struct.unpack_from("<Q16xQ", data, phoff + index * phentsize + 8)
            extent = max(extent, offset + filesz)
        return extent if extent <= len(data) else None


def _shared_libraries(objects: list[str]) -> set[str]:
    """Every shared library these ELF objects load, transitively, resolved as the dynamic
    loader does (their own search paths, then the system directories). Objects this cannot
    read are handed to ldd."""
    multiarch = sysconfig.get_config_var("MULTIARCH") or ""
    system = [d for top in ("/lib", "/usr/lib", "/usr/local/lib")
              for d in (os.path.join(top, multiarch), top) if multiarch or d == top]
    system += ["/lib64", "/usr/lib64"]
    found: set[str] = set()
    unreadable: list[str] = []
    pending = list(objects)
    while pending:
        current = pending.pop()
        section = _dynamic_section(current)
        if section is None:
            unreadable.append(current)
            continue
        interp, needed, search = section
        libraries = [interp] if interp else []
        for name in needed:
            candidates = [os.path.join(d, name) for d in [*search, *system]]
            hit = name if "/" in name else next((c for c in candidates if os.path.isfile(c)),
                                                None)
            if hit is None:
                unreadable.append(current)
            else:
                libraries.append(os.path.normpath(hit))
        for library in libraries:
            if library not in found:
                found.add(library)
                pending.append(library)
    if unreadable:
        found |= _ldd(sorted(set(unreadable)))
    return {path for path in found if path not in objects}


def _ldd(objects: list[str]) -> set[str]:
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
    return found


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
    for path in sorted(plan.files):
        extent = loaded_extent(path) if path == executable or ".so" in path else None
        size = os.path.getsize(path)
        if extent is not None and extent < size:
            plan.lengths[path] = extent
            plan.size -= size - extent
    # Directories only reached through a link still need their parents.
    for path in list(plan.dirs):
        for parent in Path(path).parents:
            plan.dirs.add(str(parent))
    plan.dirs.discard("/")
    return plan
