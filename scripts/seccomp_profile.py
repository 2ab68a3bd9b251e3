"""Write deploy/seccomp-worker.json: the seccomp profile a grading worker's container runs under.

The zygote (graders/sandbox/zygote_main.py) isolates itself with unshare(NEWNS, NEWNET, NEWUTS,
NEWIPC, NEWPID), mount, pivot_root, umount2 and setns(pid), then drops each job's uid. Docker's
default profile allows those calls only with CAP_SYS_ADMIN, and pivot_root never: the minimal root
layer is then refused. This profile is an allow-list written here, not a copy of Docker's: every
x86_64 system call libseccomp knows, except the ones no worker needs and that only widen the
kernel's attack surface or reach outside the container (below, each with why); user namespaces are
refused (clone and unshare with CLONE_NEWUSER), and clone3 answers ENOSYS so that the C library
falls back to clone, whose flags a filter can read. The jobs themselves run under the sandbox's
own much smaller filter (graders/sandbox/seccomp_filter.py) on top of this one.

    .venv/bin/python scripts/seccomp_profile.py          # rewrite the file
    .venv/bin/python scripts/seccomp_profile.py --check  # exit 1 if it is stale
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pyseccomp

OUT = Path(__file__).resolve().parent.parent / "deploy" / "seccomp-worker.json"
CLONE_NEWUSER = 0x10000000
ENOSYS = 38
HIGHEST = 1024  # well above the x86_64 table's end (~460 in Linux 6.x)

# Refused, with why. Mostly what Docker's default profile refuses as well (Docker's docs list it).
DENIED: dict[str, str] = {
    **dict.fromkeys(("init_module", "finit_module", "delete_module", "create_module",
                     "query_module", "get_kernel_syms"), "kernel modules"),
    **dict.fromkeys(("kexec_load", "kexec_file_load", "reboot"), "the host's kernel and power"),
    **dict.fromkeys(("swapon", "swapoff", "acct", "quotactl", "quotactl_fd", "nfsservctl",
                     "_sysctl", "sysfs", "ustat", "uselib", "syslog", "vhangup"),
                    "host-wide administration and obsolete interfaces"),
    **dict.fromkeys(("settimeofday", "clock_settime", "clock_adjtime", "adjtimex"),
                    "the host's clock"),
    **dict.fromkeys(("iopl", "ioperm", "vm86", "vm86old", "modify_ldt"), "hardware ports, "
                    "old x86 modes"),
    **dict.fromkeys(("bpf", "perf_event_open", "userfaultfd", "lookup_dcookie",
                     "fanotify_init", "io_uring_setup", "io_uring_enter",
                     "io_uring_register"), "large kernel attack surface, no worker needs it"),
    **dict.fromkeys(("add_key", "request_key", "keyctl"), "the kernel keyrings are not "
                    "namespaced"),
    **dict.fromkeys(("open_by_handle_at", "name_to_handle_at"), "opens files by handle, "
                    "around the mount namespace"),
    **dict.fromkeys(("ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
                     "process_madvise"), "other processes' memory"),
    **dict.fromkeys(("move_pages", "migrate_pages", "mbind", "set_mempolicy",
                     "set_mempolicy_home_node", "get_mempolicy"), "NUMA placement"),
    **dict.fromkeys(("fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree",
                     "mount_setattr"), "the new mount API: the zygote uses mount(2) only"),
    **dict.fromkeys(("personality",), "turns off address space randomisation"),
    **dict.fromkeys(("unshare", "clone", "clone3"), "allowed below, with restricted flags"),
}


def syscall_names() -> list[str]:
    names = set()
    for number in range(HIGHEST):
        try:
            name = pyseccomp.resolve_syscall(pyseccomp.Arch.X86_64, number)
        except (ValueError, OSError):
            continue
        if name:
            names.add(name.decode() if isinstance(name, bytes) else str(name))
    return sorted(names)


def profile() -> dict[str, object]:
    allowed = [name for name in syscall_names() if name not in DENIED]
    no_userns = [{"index": 0, "value": CLONE_NEWUSER, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}]
    return {
        "defaultAction": "SCMP_ACT_ERRNO",
        "defaultErrnoRet": 1,
        "architectures": ["SCMP_ARCH_X86_64"],
        "syscalls": [
            {"names": allowed, "action": "SCMP_ACT_ALLOW"},
            {"names": ["unshare", "clone"], "action": "SCMP_ACT_ALLOW", "args": no_userns,
             "comment": "namespaces for the zygote, but never a user namespace"},
            {"names": ["clone3"], "action": "SCMP_ACT_ERRNO", "errnoRet": ENOSYS,
             "comment": "its flags are behind a pointer: ENOSYS makes the C library use clone"},
        ],
    }


def main() -> int:
    text = json.dumps(profile(), indent=1) + "\n"
    if "--check" in sys.argv[1:]:
        current = OUT.read_text() if OUT.exists() else ""
        if current != text:
            print(f"{OUT} is stale: run python scripts/seccomp_profile.py")
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
