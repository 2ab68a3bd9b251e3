"""The seccomp filter every job runs under, compiled once in the parent to classic BPF.

The zygote installs the raw program with one prctl per child, so it needs neither libseccomp nor
any of our code. It is an ALLOW-list: the system calls that the interpreter, NumPy (with its
single-threaded OpenBLAS) and the child-side harness were measured to make while running
attention code (strace over the harness running attention, linear algebra, FFT, random
numbers, printing, warnings, exceptions, memory errors and imports of the standard library),
and nothing else. Everything else fails with EPERM, so the student sees an ordinary
PermissionError: new processes and threads, sockets, other processes, namespaces and mounts,
and the calls that only serve side channels or persistence: sync, inotify/fanotify/dnotify,
flock and record locks, membarrier, landlock, POSIX and interval timers, page-cache probing
(mincore, fadvise, readahead), sysinfo, SysV/POSIX IPC, io_uring, bpf, keyrings.
"""

from __future__ import annotations

import errno
import tempfile
from functools import cache

# Allowed whatever their arguments.
ALLOWED: tuple[str, ...] = (
    # reading the runtime's files (the root is a read-only private copy)
    "read", "pread64", "readv", "write", "writev", "open", "openat", "close", "close_range",
    "lseek", "fstat", "stat", "lstat", "newfstatat", "statx", "readlink", "readlinkat",
    "access", "faccessat", "faccessat2", "getdents", "getdents64", "getcwd",
    "dup", "dup2", "dup3",
    # memory
    "brk", "mmap", "munmap", "mremap", "mprotect", "mbind", "get_mempolicy",
    # waiting and time (a job's clock is bounded by the wall timeout)
    "futex", "sched_yield", "sched_getaffinity", "nanosleep", "clock_nanosleep",
    "clock_gettime", "clock_getres", "gettimeofday", "time", "times", "getrusage",
    "getitimer",
    # who am I (all namespaced or already known to the job)
    "getpid", "getppid", "gettid", "getuid", "geteuid", "getgid", "getegid", "getresuid",
    "getresgid", "getgroups", "getpgrp", "getpgid", "getsid", "uname", "getrlimit",
    "getrandom",
    # signals within the process, and leaving
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "sigaltstack", "restart_syscall",
    "exit", "exit_group",
)

# Allowed only with these values of one argument: (name, argument index, values).
TCGETS, TIOCGWINSZ, FIONCLEX, FIOCLEX = 0x5401, 0x5413, 0x5450, 0x5451
F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_DUPFD_CLOEXEC = 0, 1, 2, 3, 4, 1030
MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_DONTNEED, MADV_FREE = 0, 1, 2, 4, 8
MADV_HUGEPAGE, MADV_NOHUGEPAGE = 14, 15
ALLOWED_WITH: tuple[tuple[str, int, tuple[int, ...]], ...] = (
    # isatty and the terminal size; never TIOCSTI (typing into a terminal) or anything else
    ("ioctl", 1, (TCGETS, TIOCGWINSZ, FIONCLEX, FIOCLEX)),
    # descriptor flags only: no locks (F_SETLK*, F_OFD_*), leases or F_NOTIFY (dnotify)
    ("fcntl", 1, (F_DUPFD, F_GETFD, F_SETFD, F_GETFL, F_SETFL, F_DUPFD_CLOEXEC)),
    # what malloc and NumPy's allocator advise; not WILLNEED/COLD/PAGEOUT, which move pages of
    # the runtime's mapped files in and out of the page cache
    ("madvise", 2, (MADV_NORMAL, MADV_RANDOM, MADV_SEQUENTIAL, MADV_DONTNEED, MADV_FREE,
                    MADV_HUGEPAGE, MADV_NOHUGEPAGE)),
    # reading a limit (new_limit NULL); setting one is not needed
    ("prlimit64", 2, (0,)),
)


def policy_summary() -> str:
    """One line for `gradeformer doctor`: the filter's kind and size."""
    return (f"allow-list of {len(ALLOWED) + len(ALLOWED_WITH)} system calls "
            f"({len(ALLOWED_WITH)} with restricted arguments: "
            f"{', '.join(name for name, _, _ in ALLOWED_WITH)}); everything else EPERM; "
            "no_new_privs")


@cache
def filter_bpf() -> bytes:
    """The compiled filter; raises ImportError or OSError when libseccomp is unusable."""
    import pyseccomp as seccomp

    sfilter = seccomp.SyscallFilter(seccomp.ERRNO(errno.EPERM))
    for name in ALLOWED:
        try:
            sfilter.add_rule(seccomp.ALLOW, name)
        except (ValueError, OSError):
            continue  # not a syscall on this architecture
    for name, index, values in ALLOWED_WITH:
        for value in values:
            # Pointers are compared whole; commands and flags, like the kernel, as 32 bits.
            arg = (seccomp.Arg(index, seccomp.EQ, value) if name == "prlimit64"
                   else seccomp.Arg(index, seccomp.MASKED_EQ, 0xFFFFFFFF, value))
            sfilter.add_rule(seccomp.ALLOW, name, arg)
    with tempfile.TemporaryFile() as fh:
        sfilter.export_bpf(fh)
        fh.seek(0)
        program = fh.read()
    if not program or len(program) % 8:
        raise OSError("libseccomp exported an empty or malformed program")
    return program
