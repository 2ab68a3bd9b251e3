"""The zygote: a fork server for untrusted code, one per worker core.

These modules are never imported by the grader. The parent reads them as text and runs them as
`python -I -S -c <source>` with a cleared environment (graders/sandbox/zygote.py: a few lines
that make each module from its text, then call `main` here), so the zygote imports the standard
library and NumPy and nothing of gradeformer's from disk. It isolates itself once (cgroup, mount,
network, IPC and UTS namespaces, a read-only minimal root: this module), then forks one child per
job (zygote_serve.py); the child takes a fresh PID and IPC namespace, rlimits, an unprivileged
uid and a seccomp filter (zygote_layers.py) before it touches the student's source. The zygote
relays what the child wrote as opaque bytes: it never parses them, and the parent never
unpickles anything.

Frames on both pipes: 8 bytes (header length, payload length, big-endian) + JSON header + payload.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

from graders.sandbox.zygote_serve import ChildStart, Zygote
from graders.sandbox.zygote_sys import (
    CLONE_NEWNS,
    CONFIG_FD,
    PIDNS_FD,
    STATUS_FD,
    check,
    libc,
    mount,
    move_fd,
    read_all,
    read_frame,
    unshare,
)

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT = 1, 2, 4, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
MNT_DETACH = 2
SYS_PIVOT_ROOT = 155  # x86_64


def early_setup(config: dict[str, Any]) -> dict[str, tuple[bool, str]]:
    """Before NumPy is imported: join the cgroups (their files are not in the private root),
    then build the private root and re-execute the interpreter from it, never returning. When
    the root cannot be built we carry on here, and the layer report says why."""
    disabled = set(config.get("disable", []))
    layers: dict[str, tuple[bool, str]] = {}
    cgroups = config.get("cgroups", {})
    for name in ("cgroup_memory", "cgroup_pids"):
        path = cgroups.get(name)
        if not path:
            layers[name] = (False, cgroups.get(name + "_error", "no cgroup given"))
            continue
        try:
            _join_cgroup(path)
            layers[name] = (True, f"{cgroups[name + '_limit']} ({os.path.basename(path)})")
        except OSError as exc:
            layers[name] = (False, f"{type(exc).__name__}: {exc}")
    if "minimal_root" in disabled or "root" not in config:
        layers["minimal_root"] = (False, config.get("root_error", "disabled by the operator"))
        return layers
    try:
        _private_root(config["root"], config["root_dir"], config["root_bytes"])
    except Exception as exc:
        layers["minimal_root"] = (False, f"{type(exc).__name__}: {exc}")
        return layers
    layers["minimal_root"] = (True, config["root_detail"])
    _reexecute(config, layers)
    return layers  # not reached


def _private_root(plan: dict[str, Any], root: str, size: int) -> None:
    """A tmpfs of our own holding copies of the runtime's files at their host paths, made our
    root (pivot_root) and read-only. Nothing in it is a host inode: no inotify, page-cache,
    lock or timing channel to the host or to another zygote goes through it."""
    unshare(CLONE_NEWNS, "NEWNS")
    mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    # Large folios for the big shared libraries, as the host's page cache gives them: with
    # 4 KiB pages every job's child pays about 1 ms more mapping the same code.
    try:
        mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV,
               f"size={size},mode=0755,huge=within_size")
    except OSError:  # a kernel without transparent huge pages for tmpfs
        mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode=0755")
    for directory in plan["dirs"]:
        os.makedirs(root + directory, mode=0o755, exist_ok=True)
    for link, target in plan["symlinks"]:
        os.symlink(target, root + link)
    # ELF objects only as far as the loader reads them (graders/sandbox/root.py).
    lengths = dict(plan.get("lengths", ()))
    for path in plan["files"]:
        with open(path, "rb") as src, open(root + path, "wb") as dst:
            info = os.fstat(src.fileno())
            length = min(info.st_size, lengths.get(path, info.st_size))
            offset = 0
            while offset < length:
                sent = os.sendfile(dst.fileno(), src.fileno(), offset, length - offset)
                if not sent:
                    raise OSError(f"{path} ended early")
                offset += sent
            # Readable by the jobs' uid, never writable or set-id; the modification time is
            # kept so the interpreter trusts the copied bytecode caches (set through the open
            # copy: no second walk of its path).
            os.fchmod(dst.fileno(), (info.st_mode & 0o555) | 0o444)
            os.utime(dst.fileno(), ns=(info.st_atime_ns, info.st_mtime_ns))
    os.chdir(root)
    os.mkdir(".old")
    check(libc.syscall(SYS_PIVOT_ROOT, b".", b".old"), "pivot_root")
    os.chdir("/")
    check(libc.umount2(b"/.old", MNT_DETACH), "umount old root")
    os.rmdir("/.old")
    mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None)


def _reexecute(config: dict[str, Any], layers: dict[str, tuple[bool, str]]) -> None:
    """Run the zygote again from the private copy of the interpreter, so that no host file
    stays mapped in it (and so in any child). Fds 0 and 1 are still the parent's pipes; the
    rest of the config follows on CONFIG_FD."""
    executable = config["root"]["executable"]
    source = config.pop("zygote")
    del config["root"]
    config["early_layers"] = layers
    data = json.dumps(config).encode()
    memfd = os.memfd_create("zygote-config")
    view = memoryview(data)
    while view:
        view = view[os.write(memfd, view):]
    os.lseek(memfd, 0, os.SEEK_SET)
    move_fd(memfd, CONFIG_FD)
    os.execve(executable, [executable, "-I", "-S", "-c", source, "--private-root"],
              dict(os.environ))


def _join_cgroup(path: str) -> None:
    with open(os.path.join(path, "cgroup.procs"), "w") as fh:
        fh.write(str(os.getpid()))


def main() -> None:
    if sys.argv[1:] == ["--private-root"]:  # re-executed inside the private root
        config = json.loads(read_all(CONFIG_FD))
        os.close(CONFIG_FD)
    else:
        frame = read_frame(0)
        if frame is None:
            return
        config = frame[0]
        move_fd(os.open("/proc/self/status", os.O_RDONLY), STATUS_FD)
        move_fd(os.open("/proc/self/ns/pid", os.O_RDONLY), PIDNS_FD)
        config["early_layers"] = early_setup(config)
        # Not re-executed: drop what only the root needed (thousands of strings every child
        # would otherwise free, copying the pages that hold them).
        config.pop("root", None)
        config.pop("zygote", None)
    proto_in = os.dup(0)
    proto_out = os.dup(1)
    empty_r, empty_w = os.pipe()
    os.close(empty_w)
    os.dup2(empty_r, 0)
    os.dup2(2, 1)  # the parent points our stderr at /dev/null: stray prints go nowhere
    sys.path.extend(config["sys_path"])
    import numpy
    import numpy.fft
    import numpy.linalg
    import numpy.random  # noqa: F401

    zygote = Zygote(config, proto_in, proto_out)
    del config
    zygote.setup()
    zygote.warm_up()
    try:
        zygote.serve()
        return
    except ChildStart as start:  # we are a job's child, every layer in place
        job, run = bytes(start.job), start.run
        start.job.release()  # the zygote's job buffer (sized by earlier jobs) goes too
    # The serving frames went with the exception; the zygote object (config, layer reports,
    # buffers of other jobs) goes now, before the student's code can look for it.
    del zygote
    try:
        run(job, 3)
    finally:
        os._exit(0)

