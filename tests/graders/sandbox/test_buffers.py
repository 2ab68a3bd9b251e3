"""The zygote's reusable buffers (graders/sandbox/zygote_sys.py `private_buffer`): they take
no memory until written, so a job's fork neither copies nor its exit unmaps the whole
reserve; and they are private: a child keeps the bytes it inherited whatever the zygote
writes after the fork (a shared mapping would hand every child the later jobs' data)."""

from __future__ import annotations

import ctypes
import os

import pytest

from graders.sandbox.zygote_sys import private_buffer, wipe

MIB = 1 << 20


def _resident_pages(buffer: object, size: int) -> int:
    """How many of the buffer's pages are in memory (mincore(2))."""
    page = os.sysconf("SC_PAGE_SIZE")
    count = (size + page - 1) // page
    vector = (ctypes.c_ubyte * count)()
    libc = ctypes.CDLL(None, use_errno=True)
    libc.mincore.argtypes = (ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p)
    assert libc.mincore(_address(buffer), size, vector) == 0, ctypes.get_errno()
    return sum(v & 1 for v in vector)


def _address(buffer: object) -> int:
    return ctypes.addressof(ctypes.c_char.from_buffer(buffer))


@pytest.mark.parametrize("size", [MIB, 8 * MIB + 65536])
def test_a_buffer_takes_memory_only_where_written(size: int) -> None:
    buffer = private_buffer(size)
    assert _resident_pages(buffer, size) == 0
    buffer[:5000] = b"x" * 5000  # two pages
    assert _resident_pages(buffer, size) == 2
    wipe(buffer, 5000)
    assert buffer[:5000] == bytes(5000) and len(buffer) == size


def test_a_child_keeps_what_it_inherited() -> None:
    buffer = private_buffer(MIB)
    buffer[:6] = b"job 1:"
    go_r, go_w = os.pipe()
    seen_r, seen_w = os.pipe()
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        try:
            os.read(go_r, 1)  # until the parent has written over it
            os.write(seen_w, bytes(buffer[:6]))
        finally:
            os._exit(0)
    buffer[:6] = b"job 2:"
    os.write(go_w, b"!")
    seen = os.read(seen_r, 6)
    os.waitpid(pid, 0)
    assert seen == b"job 1:" and buffer[:6] == b"job 2:"
