"""The zygote's isolation layers: the namespaces it enters once at startup, the steps each
job's child takes before the student's code (rlimits, an unprivileged uid, the seccomp filter),
and the probe child that checks every layer from inside and reports what holds.

Runs inside the zygote only (sent as text, see graders/sandbox/zygote.py): the standard library
and nothing else.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import json
import os
import resource
import signal
import sys
from typing import Any

from graders.sandbox.zygote_sys import (
    CLONE_NEWIPC,
    CLONE_NEWNET,
    CLONE_NEWPID,
    CLONE_NEWUTS,
    PIDNS_FD,
    check,
    libc,
    unshare,
    vm_size,
)

PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 1, 38, 22
SECCOMP_MODE_FILTER = 2
SYS_SECCOMP = 317  # x86_64
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_SPEC_ALLOW = 1 << 2


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


class Isolation:
    """The layers of one zygote and the report of each: set up, failed with the reason, or
    disabled by the operator."""

    def __init__(self, config: dict[str, Any]) -> None:
        self.config = config
        self.disabled = set(config.get("disable", []))
        self.layers: dict[str, tuple[bool, str]] = {}
        self.pidns_fd = -1
        bpf: bytes = bytes.fromhex(config.get("seccomp_bpf", ""))
        self.bpf_buffer = ctypes.create_string_buffer(bpf, len(bpf))
        self.bpf_prog = _SockFprog(len(bpf) // 8, ctypes.addressof(self.bpf_buffer))
        self.address_space_base = 0

    def layer(self, name: str, action: Any, detail: str) -> bool:
        if name in self.disabled:
            self.layers[name] = (False, "disabled by the operator")
            return False
        try:
            action()
        except Exception as exc:  # a layer that cannot be set up is reported, never hidden
            self.layers[name] = (False, f"{type(exc).__name__}: {exc}")
            return False
        self.layers[name] = (True, detail)
        return True

    # ---- once, at startup ------------------------------------------------------------------
    def setup(self) -> None:
        cfg = self.config
        # The cgroups and the private root were set up before NumPy was imported (and, with
        # the root, by the interpreter we re-executed from): see early_setup.
        self.layers.update({name: (bool(ok), str(detail)) for name, (ok, detail) in
                            cfg["early_layers"].items()})
        self.layer("fresh_interpreter", self._check_fresh, "python -I -S, cleared environment, "
                   "OPENBLAS_NUM_THREADS=1; imports numpy and nothing of the grader's")
        self.address_space_base = vm_size()
        self.layer("network_namespace", lambda: unshare(CLONE_NEWNET, "NEWNET"),
                   "no network interfaces except a down loopback")
        self.layer("uts_namespace", lambda: unshare(CLONE_NEWUTS, "NEWUTS"), "own hostname")
        self.layer("ipc_namespace", lambda: unshare(CLONE_NEWIPC, "NEWIPC"),
                   "a fresh SysV IPC namespace per job")
        self.layer("pid_namespace", self._open_pidns, "a fresh PID namespace per job (PID 1)")
        self._probe_child_layers()

    def _check_fresh(self) -> None:
        flags = sys.flags
        if not (flags.isolated and flags.no_site):
            raise RuntimeError("not started with -I -S")
        extra = set(os.environ) - {"OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                                   "LC_ALL", "PYTHONHASHSEED"}
        if extra:
            raise RuntimeError(f"unexpected environment variables {sorted(extra)}")

    def _open_pidns(self) -> None:
        self.pidns_fd = os.dup(PIDNS_FD)  # non-inheritable: no child gets it
        os.close(PIDNS_FD)
        self._new_pidns()
        self._reset_pidns()

    def _new_pidns(self) -> None:
        unshare(CLONE_NEWPID, "NEWPID")

    def _reset_pidns(self) -> None:
        # unshare(CLONE_NEWPID) only takes effect for the next child, and a second unshare fails
        # until we point pid_for_children back at our own namespace.
        check(libc.setns(self.pidns_fd, CLONE_NEWPID), "setns(pid)")

    def _probe_child_layers(self) -> None:
        """Fork one child through the per-job setup and let it verify each layer from inside."""
        names = ("rlimits", "uid_drop", "seccomp", "pid_namespace_child")
        import socket  # noqa: F401  # here: without a private root the job's uid may not reach it
        r, w = os.pipe()
        pidns = self.layers.get("pid_namespace", (False, ""))[0]
        if pidns:
            self._new_pidns()
        pid = os.fork()
        if pid == 0:
            os.close(r)
            report: dict[str, list[Any]] = {}
            for name, step in (("rlimits", self._set_rlimits), ("uid_drop", self._drop_uid),
                               ("seccomp", self._load_seccomp)):
                if name in self.disabled:
                    report[name] = [False, "disabled by the operator"]
                    continue
                try:
                    step(1.0)
                    report[name] = [True, ""]
                except Exception as exc:
                    report[name] = [False, f"{type(exc).__name__}: {exc}"]
            try:
                report["verify"] = [True, json.dumps(_verify_inside(self.config.get("host_file")))]
            except Exception as exc:  # reported, not a silent death of the probe
                report["verify"] = [False, json.dumps({"error": f"{type(exc).__name__}: {exc}"})]
            os.write(w, json.dumps(report).encode())
            os._exit(0)
        if pidns:
            self._reset_pidns()
        os.close(w)
        data = b""
        while chunk := os.read(r, 65536):
            data += chunk
        os.close(r)
        os.waitpid(pid, 0)
        report = json.loads(data) if data else {n: [False, "probe child died"] for n in names}
        inside = json.loads(report.get("verify", [False, "{}"])[1] or "{}")
        limits = self.config["limits"]
        details = {
            "rlimits": f"CPU {limits['cpu_seconds']} s (soft = hard), address space "
                       f"+{limits['memory_mb']} MiB, NPROC {limits['nproc']}, FSIZE 0, NOFILE "
                       f"{limits['nofile']}, CORE 0",
            "uid_drop": f"uid/gid {self.config['uid']}, no supplementary groups, no capabilities",
            "seccomp": self.config.get("seccomp_summary", "a filter"),
        }
        for name in ("rlimits", "uid_drop", "seccomp"):
            ok, why = report.get(name, [False, "not reported"])
            if ok and name == "uid_drop" and inside.get("uid") != self.config["uid"]:
                ok, why = False, f"uid inside is {inside.get('uid')}"
            if ok and name == "seccomp" and not inside.get("socket_blocked"):
                ok, why = False, "a socket could still be created"
            if ok and name == "seccomp" and not inside.get("unlisted_blocked"):
                ok, why = False, "a call outside the allow-list (fsync) was not refused"
            self.layers[name] = (bool(ok), details[name] if ok else why)
        if pidns and inside.get("pid") != 1:
            self.layers["pid_namespace"] = (False, f"pid inside is {inside.get('pid')}, not 1")
        if self.layers.get("minimal_root", (False, ""))[0] and inside.get("sees_etc"):
            self.layers["minimal_root"] = (False, "/etc is visible inside")
        if self.layers.get("minimal_root", (False, ""))[0] and inside.get("host_file"):
            self.layers["minimal_root"] = (False, "a runtime file inside is the host's own file")
        if self.layers.get("network_namespace", (False, ""))[0] and inside.get("network"):
            self.layers["network_namespace"] = (False, "127.0.0.1 is reachable inside")

    # ---- per child -------------------------------------------------------------------------
    def _set_rlimits(self, timeout: float) -> None:
        limits = self.config["limits"]
        cpu = max(1, int(timeout + 0.999)) + 1
        space = self.address_space_base + limits["memory_mb"] * (1 << 20)
        for which, value in ((resource.RLIMIT_CPU, cpu), (resource.RLIMIT_AS, space),
                             (resource.RLIMIT_NPROC, limits["nproc"]), (resource.RLIMIT_FSIZE, 0),
                             (resource.RLIMIT_NOFILE, limits["nofile"]), (resource.RLIMIT_CORE, 0),
                             (resource.RLIMIT_MEMLOCK, 0), (resource.RLIMIT_MSGQUEUE, 0)):
            resource.setrlimit(which, (value, value))

    def _drop_uid(self, _timeout: float) -> None:
        uid = self.config["uid"]
        os.setgroups([])
        os.setresgid(uid, uid, uid)
        os.setresuid(uid, uid, uid)
        # Cleared by the credential change above, so set it afterwards: die with the zygote.
        check(libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "PR_SET_PDEATHSIG")

    def _load_seccomp(self, _timeout: float) -> None:
        if not self.bpf_prog.len:
            raise RuntimeError("no filter was given")
        check(libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "PR_SET_NO_NEW_PRIVS")
        # SPEC_ALLOW: without it the kernel also forces the Speculative Store Bypass mitigation
        # on the task, which in a VM costs an MSR write (a VM exit) on every context switch:
        # about 2 ms of CPU per job here. That mitigation guards data inside the same address
        # space, and the child's holds nothing but its own job (the zygote wipes the rest).
        if libc.syscall(SYS_SECCOMP, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_SPEC_ALLOW,
                         ctypes.byref(self.bpf_prog)) != 0:
            check(libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER,
                               ctypes.byref(self.bpf_prog), 0, 0), "PR_SET_SECCOMP")


def _verify_inside(host_file: list[Any] | None) -> dict[str, Any]:
    import socket

    found: dict[str, Any] = {"uid": os.getuid(), "pid": os.getpid(),
                             "sees_etc": os.path.exists("/etc/passwd")}
    if host_file:
        path, device, inode = host_file
        with contextlib.suppress(OSError):
            inside = os.stat(path)
            found["host_file"] = (inside.st_dev, inside.st_ino) == (device, inode)
    try:
        socket.socket(socket.AF_INET, socket.SOCK_STREAM).close()
        found["socket_blocked"] = False
    except OSError:
        found["socket_blocked"] = True
    # fsync is on no deny-list but off the allow-list: refused only by an allow-list filter.
    try:
        os.fsync(1)
        found["unlisted_blocked"] = False
    except OSError as exc:
        found["unlisted_blocked"] = exc.errno == errno.EPERM
    found["network"] = False
    if not found["socket_blocked"]:
        try:
            with socket.create_connection(("127.0.0.1", 9), timeout=0.2):
                found["network"] = True
        except ConnectionRefusedError:
            found["network"] = True  # something answered: the host's loopback is reachable
        except OSError:
            pass
    return found

