"""What the private root holds: every import a student's NumPy program may make works inside it,
what no such program can use is left out, and ELF objects are copied only as far as the dynamic
loader reads them (graders/sandbox/root.py)."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.sandbox import Sandbox
from graders.sandbox.root import SKIPPED_EXTENSIONS, loaded_extent, root_plan
from tests.graders.sandbox.conftest import assert_healthy, run

# What attention homework and its helpers import: NumPy and its subpackages, the numeric and
# functional standard library, text, serialisation, hashing, dates, the test helpers.
STUDENT_IMPORTS = (
    "numpy", "numpy.linalg", "numpy.random", "numpy.fft", "numpy.polynomial", "numpy.ma",
    "numpy.testing", "numpy.lib.stride_tricks", "numpy.f2py", "math", "cmath", "statistics",
    "fractions",
    "decimal", "numbers", "random", "functools", "itertools", "operator", "collections",
    "collections.abc", "heapq", "bisect", "array", "copy", "dataclasses", "typing", "enum",
    "abc", "types", "contextlib", "warnings", "weakref", "re", "string", "textwrap",
    "unicodedata", "json", "pickle", "struct", "csv", "io", "base64", "zlib", "gzip",
    "hashlib", "hmac", "secrets", "datetime", "time", "calendar", "pprint", "traceback",
    "inspect", "logging", "unittest", "doctest", "timeit", "argparse", "pathlib", "tempfile",
)
# Checks that the modules above work, not only import (the ELF objects behind them included).
WORKS = """
import decimal, hashlib, hmac, math, unicodedata, zlib, json
import numpy as np
a = np.arange(9.0).reshape(3, 3) + np.eye(3)
print(json.dumps({
    "solve": np.linalg.solve(a, a @ np.ones(3)).round(9).tolist(),
    "rng": bool(np.isfinite(np.random.default_rng(1).standard_normal(4)).all()),
    "fft": np.fft.fft(np.ones(4)).real.round(9).tolist(),
    "decimal": str(decimal.Decimal(1) / decimal.Decimal(8)),
    "sha256": hashlib.sha256(b"attention").hexdigest(),
    "hmac": hmac.new(b"k", b"m", "sha256").hexdigest(),
    "math": math.isqrt(10**6), "name": unicodedata.name("\u03b1"),
    "zlib": zlib.decompress(zlib.compress(b"qkv")).decode(),
}))
"""


def test_a_students_imports_work_inside_the_root(sandbox: Sandbox) -> None:
    source = ("import importlib\nfailed = []\n"
              f"for name in {STUDENT_IMPORTS!r}:\n"
              "    try:\n        importlib.import_module(name)\n"
              "    except Exception as exc:\n        failed.append(f'{name}: {exc!r}')\n"
              "print(failed)\n")
    outcome = run(sandbox, source)
    assert outcome.output.strip() == "[]", outcome
    import hashlib
    import hmac

    worked = json.loads(run(sandbox, WORKS).output)
    assert worked == {
        "solve": [1.0, 1.0, 1.0], "rng": True, "fft": [4.0, 0.0, 0.0, 0.0],
        "decimal": "0.125", "sha256": hashlib.sha256(b"attention").hexdigest(),
        "hmac": hmac.new(b"k", b"m", "sha256").hexdigest(), "math": 1000,
        "name": "GREEK SMALL LETTER ALPHA", "zlib": "qkv"}
    assert_healthy(sandbox)


def test_what_no_student_program_can_use_is_left_out(sandbox: Sandbox) -> None:
    plan = root_plan()
    names = {os.path.basename(f).split(".", 1)[0] for f in plan.files if ".so" in f}
    assert not names & SKIPPED_EXTENSIONS
    assert not any("/distutils/" in f or "/tests/" in f or "/test/" in f for f in plan.files)
    assert {"math", "_decimal", "_json", "_multiarray_umath"} <= names
    source = ("import importlib\n"
              "for name in ('_testcapi', '_ssl', 'ssl', 'sqlite3', 'numpy.core._simd'):\n"
              "    try:\n        importlib.import_module(name)\n"
              "    except ImportError:\n        print(name, 'missing')\n")
    assert run(sandbox, source).output.split("\n")[:5] == [
        f"{name} missing" for name in ("_testcapi", "_ssl", "ssl", "sqlite3",
                                       "numpy.core._simd")]


def _elf(phoff: int, segments: list[tuple[int, int]], size: int) -> bytes:
    """An ELF64 little-endian header and program header table (56-byte entries) at `phoff`,
    with `segments` as (p_offset, p_filesz), padded with junk to `size` bytes."""
    data = bytearray(b"\x7fELF\x02\x01\x01" + bytes(57))
    struct.pack_into("<Q", data, 32, phoff)
    struct.pack_into("<HH", data, 54, 56, len(segments))
    data += bytes(max(0, phoff + 56 * len(segments) - len(data)))
    for index, (offset, filesz) in enumerate(segments):
        struct.pack_into("<IIQQQQQQ", data, phoff + 56 * index, 1, 5, offset, 0, 0, filesz,
                         filesz, 4096)
    return bytes(data) + b"\xa5" * max(0, size - len(data))


@settings(max_examples=60, deadline=None)
@given(phoff=st.integers(64, 512),
       segments=st.lists(st.tuples(st.integers(0, 1 << 14), st.integers(0, 1 << 14)),
                         max_size=6),
       tail=st.integers(0, 1 << 12))
def test_the_extent_is_what_the_loader_reads(tmp_path_factory: pytest.TempPathFactory,
                                             phoff: int, segments: list[tuple[int, int]],
                                             tail: int) -> None:
    # Program headers anywhere after the ELF header, segments anywhere, any tail after them
    # (symbols, debugging information, section headers): the extent covers the header, the
    # table and every segment's file bytes, and nothing of the tail.
    needed = max([64, phoff + 56 * len(segments), *(o + f for o, f in segments)])
    path = tmp_path_factory.mktemp("elf") / "lib.so"
    path.write_bytes(_elf(phoff, segments, needed + tail))
    assert loaded_extent(str(path)) == needed
    # A file shorter than its own headers say is not cut at all.
    path.write_bytes(_elf(phoff, segments, needed)[:needed - 1])
    assert loaded_extent(str(path)) is None


def test_what_is_not_elf_is_copied_whole(tmp_path: Path) -> None:
    for content in (b"", b"\x7fELF", b"#!/bin/sh\n" * 20, b"\x7fELF\x01\x01" + bytes(100)):
        path = tmp_path / "f"
        path.write_bytes(content)
        assert loaded_extent(str(path)) is None


def test_extension_modules_cut_to_their_extent_import_and_run(tmp_path: Path) -> None:
    # The interpreter's own extension modules, cut as the root cuts them, in a fresh process.
    plan = root_plan()
    dynload = plan.sys_path[-1]
    cut = {os.path.basename(f).split(".", 1)[0]: (f, n) for f, n in plan.lengths.items()
           if os.path.dirname(f) == dynload}
    if not cut:
        pytest.skip("this interpreter's extension modules carry nothing beyond what loads")
    for path, length in cut.values():
        with open(path, "rb") as src:
            (tmp_path / os.path.basename(path)).write_bytes(src.read(length))
    if "_decimal" not in cut:
        pytest.skip("_decimal is not among the cut modules")
    code = ("import importlib, sys\n"
            f"sys.path.insert(0, {str(tmp_path)!r})\n"
            f"for name in {sorted(cut)!r}:\n"
            "    sys.modules.pop(name, None)\n"
            "    module = importlib.import_module(name)\n"
            f"    assert module.__file__.startswith({str(tmp_path)!r}), module.__file__\n"
            "import _decimal\n"
            "print(_decimal.Decimal(1) / _decimal.Decimal(8))\n")
    done = subprocess.run([sys.executable, "-I", "-S", "-c", code], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0.125"
