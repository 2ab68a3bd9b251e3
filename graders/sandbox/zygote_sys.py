"""The zygote's calls into the kernel and its pipes: libc (unshare, mount, prctl, setns), the
frames on the protocol pipes, buffers read and wiped in place, and the few descriptors it carries
across its re-execution into the private root.

Runs inside the zygote only (sent as text, see graders/sandbox/zygote.py): the standard library
and nothing else.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import mmap
import os
import signal
import struct
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CONFIG_FD = 3  # the config, across the re-execution into the private root
STATUS_FD = 5  # /proc/self/status, opened before the private root hid /proc
PIDNS_FD = 6  # /proc/self/ns/pid, likewise

libc = ctypes.CDLL(None, use_errno=True)


def check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def unshare(flags: int, what: str) -> None:
    check(libc.unshare(flags), f"unshare({what})")


def mount(src: str | None, target: str, fstype: str | None, flags: int, data: str | None) -> None:
    def enc(s: str | None) -> bytes | None:
        return None if s is None else s.encode()

    check(libc.mount(enc(src), enc(target), enc(fstype), flags, enc(data)), f"mount {target}")


def read_frame(fd: int) -> tuple[dict[str, Any], bytes] | None:
    head = read_exact(fd, 8)
    if head is None:
        return None
    hlen, plen = struct.unpack(">II", head)
    header = read_exact(fd, hlen)
    payload = read_exact(fd, plen) if plen else b""
    if header is None or payload is None:
        return None
    return json.loads(header), payload


def move_fd(fd: int, target: int) -> None:
    """Put `fd` at `target`, inheritable across exec."""
    if fd == target:
        os.set_inheritable(fd, True)
        return
    os.dup2(fd, target)
    os.close(fd)


def read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def read_exact(fd: int, n: int) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def write_frame(fd: int, header: dict[str, Any], *parts: memoryview | bytes) -> None:
    raw = json.dumps(header).encode()
    total = sum(len(p) for p in parts)
    head = struct.pack(">II", len(raw), total) + raw
    for part in (head, *parts):
        data = memoryview(part)
        while data:
            data = data[os.write(fd, data):]


def private_buffer(size: int) -> mmap.mmap:
    """`size` zero bytes of private anonymous memory that take no page until written: a job's
    child inherits (and its fork copies the page table entries of) only the pages earlier
    jobs wrote to, not the whole reserve. A `bytearray` of the 8 MiB result reserve was 2,000
    resident pages that every fork copied and every child's exit unmapped. Private, so
    copy-on-write like the heap: a child never sees what the zygote writes after the fork."""
    return mmap.mmap(-1, size, mmap.MAP_PRIVATE)


Buffer = bytearray | mmap.mmap


def read_into(fd: int, buffer: Buffer, n: int) -> bool:
    """Fill buffer[:n] from fd without creating intermediate bytes objects."""
    view = memoryview(buffer)
    got = 0
    while got < n:
        count = os.readv(fd, [view[got:n]])
        if not count:
            return False
        got += count
    return True


def wipe(buffer: Buffer, n: int) -> None:
    """Zero what a job left in a reused buffer: the next job's child inherits our memory."""
    # Addressed through a c_char, never a (c_char * n) type: ctypes keeps every array type it
    # makes, so a type per job's length would leave each job's sizes for the next child.
    if n:
        ctypes.memset(ctypes.addressof(ctypes.c_char.from_buffer(buffer)), 0, n)


def kill(pid: int) -> None:
    for send in (os.killpg, os.kill):
        with contextlib.suppress(OSError):
            send(pid, signal.SIGKILL)


def vm_size() -> int:
    """Our address space now. In a private root there is no /proc: the status file was opened
    before we re-executed (same process, so it describes us) and left at STATUS_FD."""
    try:
        try:
            os.lseek(STATUS_FD, 0, os.SEEK_SET)
            text = os.read(STATUS_FD, 1 << 16).decode()
            os.close(STATUS_FD)
        except OSError:
            with open("/proc/self/status") as fh:
                text = fh.read()
        for line in text.splitlines():
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError):
        pass
    return 512 << 20

