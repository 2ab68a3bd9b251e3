"""The seccomp filter every job runs under, compiled once in the parent to classic BPF.

The zygote installs the raw program with one prctl per child, so it needs neither libseccomp nor
any of our code. A deny-list (default allow) keeps NumPy and the interpreter working; everything
denied fails with EPERM so the student sees an ordinary PermissionError.
"""

from __future__ import annotations

import errno
import tempfile
from functools import cache

DENIED: tuple[str, ...] = (
    # new processes, threads and programs
    "fork", "vfork", "clone", "clone3", "execve", "execveat",
    # signals to anyone (the PID namespace already hides everyone else)
    "kill", "tkill", "tgkill", "rt_sigqueueinfo", "rt_tgsigqueueinfo",
    "pidfd_open", "pidfd_send_signal", "pidfd_getfd",
    # network
    "socket", "socketpair", "connect", "bind", "listen", "accept", "accept4",
    # other processes' memory, debugging
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "perf_event_open",
    # file systems and namespaces
    "mount", "umount2", "pivot_root", "chroot", "unshare", "setns", "open_tree", "move_mount",
    "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "name_to_handle_at",
    "open_by_handle_at", "mknod", "mknodat", "quotactl", "swapon", "swapoff",
    # SysV and POSIX IPC that outlives the job
    "shmget", "shmat", "shmdt", "shmctl", "semget", "semop", "semtimedop", "semctl",
    "msgget", "msgsnd", "msgrcv", "msgctl", "mq_open", "mq_unlink", "mq_timedsend",
    "mq_timedreceive", "mq_notify", "mq_getsetattr",
    # kernel interfaces with a history of exploits
    "io_uring_setup", "io_uring_enter", "io_uring_register", "bpf", "userfaultfd",
    "keyctl", "add_key", "request_key", "memfd_create", "memfd_secret",
    # the machine itself
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load", "reboot",
    "sethostname", "setdomainname", "settimeofday", "clock_settime", "clock_adjtime",
    "adjtimex", "acct", "syslog", "vhangup", "iopl", "ioperm", "modify_ldt", "uselib",
    "personality", "lookup_dcookie", "fanotify_init",
    # credentials (already unprivileged: this makes any attempt loud)
    "setuid", "setgid", "setreuid", "setregid", "setresuid", "setresgid", "setgroups",
    "setfsuid", "setfsgid", "capset",
)

TIOCSTI = 0x5412  # push characters into a terminal's input queue


@cache
def filter_bpf() -> bytes:
    """The compiled filter; raises ImportError or OSError when libseccomp is unusable."""
    import pyseccomp as seccomp

    denied = seccomp.ERRNO(errno.EPERM)
    sfilter = seccomp.SyscallFilter(seccomp.ALLOW)
    for name in DENIED:
        try:
            sfilter.add_rule(denied, name)
        except (ValueError, OSError):
            continue  # not a syscall on this architecture
    sfilter.add_rule(denied, "ioctl", seccomp.Arg(1, seccomp.MASKED_EQ, 0xFFFFFFFF, TIOCSTI))
    with tempfile.TemporaryFile() as fh:
        sfilter.export_bpf(fh)
        fh.seek(0)
        program = fh.read()
    if not program or len(program) % 8:
        raise OSError("libseccomp exported an empty or malformed program")
    return program
