"""The zygote: a fork server for untrusted code, one per worker core.

This file is never imported by the grader. The parent reads it as text and runs it as
`python -I -S -c <source>` with a cleared environment, so the zygote imports the standard
library and NumPy and nothing of gradeformer's. It isolates itself once (cgroup, mount, network,
IPC and UTS namespaces, a read-only minimal root), then forks one child per job; the child takes
a fresh PID and IPC namespace, rlimits, an unprivileged uid and a seccomp filter before it touches
the student's source. The zygote relays what the child wrote as opaque bytes: it never parses
them, and the parent never unpickles anything.

Frames on both pipes: 8 bytes (header length, payload length, big-endian) + JSON header + payload.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import fcntl
import json
import os
import resource
import select
import signal
import struct
import sys
import time
from typing import Any

CLONE_NEWNS = 0x00020000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT = 1, 2, 4, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP = 1, 38, 22
SECCOMP_MODE_FILTER = 2
SYS_PIVOT_ROOT = 155  # x86_64
SYS_SECCOMP = 317  # x86_64
SECCOMP_SET_MODE_FILTER = 1
SECCOMP_FILTER_FLAG_SPEC_ALLOW = 1 << 2
READY = b"R"  # the child's word, on a pipe it closes before student code: layers are in place
READY_WAIT_S = 5.0  # set-up takes a millisecond; a child silent this long is stuck
READY_FD = 4  # where the child holds that pipe while it sets up
CONFIG_FD = 3  # the config, across the re-execution into the private root
STATUS_FD = 5  # /proc/self/status, opened before the private root hid /proc
PIDNS_FD = 6  # /proc/self/ns/pid, likewise
DRAIN_TICK_S = 0.02  # how often a running job's pipes are emptied
PIPE_SIZE = 1 << 20
_DONE = json.dumps({"kind": "done"}).encode()
DONE_FRAME = struct.pack(">II", len(_DONE), 0) + _DONE  # what the harness writes last

_libc = ctypes.CDLL(None, use_errno=True)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _unshare(flags: int, what: str) -> None:
    _check(_libc.unshare(flags), f"unshare({what})")


def _mount(src: str | None, target: str, fstype: str | None, flags: int, data: str | None) -> None:
    def enc(s: str | None) -> bytes | None:
        return None if s is None else s.encode()

    _check(_libc.mount(enc(src), enc(target), enc(fstype), flags, enc(data)), f"mount {target}")


def _read_frame(fd: int) -> tuple[dict[str, Any], bytes] | None:
    head = _read_exact(fd, 8)
    if head is None:
        return None
    hlen, plen = struct.unpack(">II", head)
    header = _read_exact(fd, hlen)
    payload = _read_exact(fd, plen) if plen else b""
    if header is None or payload is None:
        return None
    return json.loads(header), payload


def _move_fd(fd: int, target: int) -> None:
    """Put `fd` at `target`, inheritable across exec."""
    if fd == target:
        os.set_inheritable(fd, True)
        return
    os.dup2(fd, target)
    os.close(fd)


def _read_all(fd: int) -> bytes:
    chunks = []
    while chunk := os.read(fd, 1 << 20):
        chunks.append(chunk)
    return b"".join(chunks)


def _read_exact(fd: int, n: int) -> bytes | None:
    chunks, got = [], 0
    while got < n:
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def _write_frame(fd: int, header: dict[str, Any], *parts: memoryview | bytes) -> None:
    raw = json.dumps(header).encode()
    total = sum(len(p) for p in parts)
    head = struct.pack(">II", len(raw), total) + raw
    for part in (head, *parts):
        data = memoryview(part)
        while data:
            data = data[os.write(fd, data):]


def _read_into(fd: int, buffer: bytearray, n: int) -> bool:
    """Fill buffer[:n] from fd without creating intermediate bytes objects."""
    view = memoryview(buffer)
    got = 0
    while got < n:
        count = os.readv(fd, [view[got:n]])
        if not count:
            return False
        got += count
    return True


def _wipe(buffer: bytearray, n: int) -> None:
    """Zero what a job left in a reused buffer: the next job's child inherits our memory."""
    # Addressed through a c_char, never a (c_char * n) type: ctypes keeps every array type it
    # makes, so a type per job's length would leave each job's sizes for the next child.
    if n:
        ctypes.memset(ctypes.addressof(ctypes.c_char.from_buffer(buffer)), 0, n)


class ChildStart(BaseException):
    """Raised in a freshly forked child once its layers are in place: it unwinds every frame of
    the serving loop, so nothing of the zygote (its config, the previous job's reply, counters,
    buffers) stays reachable when the student's code runs. Not an Exception: nothing on the
    way may catch it."""

    def __init__(self, job: memoryview, run: Any) -> None:
        super().__init__()
        self.job = job
        self.run = run


class Zygote:
    def __init__(self, config: dict[str, Any], proto_in: int, proto_out: int) -> None:
        self.config = config
        self.proto_in = proto_in
        self.proto_out = proto_out
        self.disabled = set(config.get("disable", []))
        self.layers: dict[str, tuple[bool, str]] = {}
        self.pidns_fd = -1
        bpf: bytes = bytes.fromhex(config.get("seccomp_bpf", ""))
        self.bpf_buffer = ctypes.create_string_buffer(bpf, len(bpf))
        self.bpf_prog = _SockFprog(len(bpf) // 8, ctypes.addressof(self.bpf_buffer))
        self.address_space_base = 0
        self.unreaped = 0
        # The job being drained: kept in a buffer wiped after each job, so that no number of a
        # previous student's job lives in a Python object a later child could find.
        self.counts = (ctypes.c_int64 * 3)()  # result bytes, output kept, output total
        limits = config["limits"]
        # Student data (the job, the results, the output) only ever lives in these buffers,
        # wiped after each job, never in Python objects of ours that a later child could find.
        self.job_buffer = bytearray(1 << 20)
        self.result_buffer = bytearray(limits["result_bytes"] + (1 << 16))
        self.output_buffer = bytearray(limits["output_keep"])
        self.scratch = bytearray(1 << 16)
        # The child-side harness is our own source, sent by the parent and run here before any
        # fork, so each child starts with it ready; student code never sees the zygote's copy.
        self.harness: dict[str, Any] = {"__name__": "harness"}
        exec(compile(config["harness"], "<harness>", "exec"), self.harness)

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
        self.address_space_base = _vm_size()
        self.layer("network_namespace", lambda: _unshare(CLONE_NEWNET, "NEWNET"),
                   "no network interfaces except a down loopback")
        self.layer("uts_namespace", lambda: _unshare(CLONE_NEWUTS, "NEWUTS"), "own hostname")
        self.layer("ipc_namespace", lambda: _unshare(CLONE_NEWIPC, "NEWIPC"),
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
        _unshare(CLONE_NEWPID, "NEWPID")

    def _reset_pidns(self) -> None:
        # unshare(CLONE_NEWPID) only takes effect for the next child, and a second unshare fails
        # until we point pid_for_children back at our own namespace.
        _check(_libc.setns(self.pidns_fd, CLONE_NEWPID), "setns(pid)")

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
        _check(_libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0), "PR_SET_PDEATHSIG")

    def _load_seccomp(self, _timeout: float) -> None:
        if not self.bpf_prog.len:
            raise RuntimeError("no filter was given")
        _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "PR_SET_NO_NEW_PRIVS")
        # SPEC_ALLOW: without it the kernel also forces the Speculative Store Bypass mitigation
        # on the task, which in a VM costs an MSR write (a VM exit) on every context switch:
        # about 2 ms of CPU per job here. That mitigation guards data inside the same address
        # space, and the child's holds nothing but its own job (the zygote wipes the rest).
        if _libc.syscall(SYS_SECCOMP, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_SPEC_ALLOW,
                         ctypes.byref(self.bpf_prog)) != 0:
            _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER,
                               ctypes.byref(self.bpf_prog), 0, 0), "PR_SET_SECCOMP")

    def warm_up(self) -> None:
        """Run the harness once here on a job of our own, so the caches it fills (NumPy's
        ufunc dispatch, the compiler, json) are inherited by every child instead of rebuilt
        in each; then freeze the heap so the children's garbage collector skips it."""
        import gc

        import numpy as np

        source = ("import numpy as np\n"
                  "def f(a, b):\n"
                  "    s = a @ b.T / np.sqrt(a.shape[-1])\n"
                  "    w = np.exp(s - s.max(axis=1, keepdims=True))\n"
                  "    w = w / np.sum(w, axis=-1, keepdims=True)\n"
                  "    w = np.where(np.triu(np.ones((3, 3)), k=1) == 1, 0.0, w)\n"
                  "    return w @ b, w\n")
        data = np.arange(9, dtype=np.float64).tobytes()
        job = {"source": source, "arrays": [{"dtype": "<f8", "shape": [3, 3], "count": 9,
                                             "offset": 0}],
               "calls": [{"function": "f", "args": [0, 0]}, {"function": "g", "args": []}],
               "caps": {"result_bytes": 1 << 20, "salvage_elements": 64}}
        self.harness["install_streams"]()
        raw = json.dumps(job).encode()
        blob = struct.pack(">II", len(raw), len(data)) + raw + data
        r, w = os.pipe()
        try:
            self.harness["run"](blob, w, False)
        finally:
            os.close(w)
            while os.read(r, 1 << 16):
                pass
            os.close(r)
        gc.collect()
        gc.freeze()

    # ---- jobs ------------------------------------------------------------------------------
    def serve(self) -> None:
        active = {name: {"active": ok, "detail": detail} for name, (ok, detail) in
                  self.layers.items()}
        _write_frame(self.proto_out, {"hello": True, "pid": os.getpid(), "layers": active})
        while True:
            head = _read_exact(self.proto_in, 8)
            if head is None:
                return
            hlen, plen = struct.unpack(">II", head)
            control = _read_exact(self.proto_in, hlen)  # id and timeout: no student data
            if control is None:
                return
            header = json.loads(control)
            if plen > len(self.job_buffer):
                self.job_buffer = bytearray(plen)
            if not _read_into(self.proto_in, self.job_buffer, plen):
                return
            result_len = output_len = 0
            try:
                reply, result_len, output_len = self.run_job(header, plen)
                _write_frame(self.proto_out, reply,
                             memoryview(self.result_buffer)[:result_len],
                             memoryview(self.output_buffer)[:output_len])
            except Exception as exc:
                _write_frame(self.proto_out, {"id": header.get("id"), "status": "zygote_error",
                                              "detail": f"{type(exc).__name__}: {exc}"})
            finally:
                _wipe(self.result_buffer, result_len)
                _wipe(self.output_buffer, output_len)
                ctypes.memset(self.counts, 0, ctypes.sizeof(self.counts))
            self._reap(block=False)

    def _reap(self, block: bool) -> None:
        """Collect the previous child. Its teardown overlaps with the parent reading our reply;
        it must be gone before the next fork (one task per job uid, no stray PID namespace)."""
        if self.unreaped:
            pid, _ = os.waitpid(self.unreaped, 0 if block else os.WNOHANG)
            if pid:
                self.unreaped = 0

    def run_job(self, job: dict[str, Any], job_len: int) -> tuple[dict[str, Any], int, int]:
        self._reap(block=True)
        timeout = float(job["timeout"])
        limits = self.config["limits"]
        res_r, res_w = os.pipe()
        out_r, out_w = os.pipe()
        for fd in (res_r, out_r):
            with contextlib.suppress(OSError):
                fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)
        in_r, in_w = os.pipe()
        os.close(in_w)  # the child's stdin reads end-of-file at once
        ready_r, ready_w = os.pipe()
        pidns = self.layers.get("pid_namespace", (False, ""))[0]
        started = time.monotonic()
        if pidns:
            self._new_pidns()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child
            self._child(job_len, timeout, (in_r, out_w, out_w, res_w, ready_w))
        _wipe(self.job_buffer, job_len)  # the child has its copy
        if pidns:
            self._reset_pidns()
        for fd in (in_r, out_w, res_w, ready_w):
            os.close(fd)
        # Set-up health comes on a pipe of its own that the child closes before the student's
        # code runs: nothing the student does (an exit code, a frame) can speak for it.
        ready = _await_ready(ready_r, started + timeout)
        forked = time.monotonic()
        if ready:
            status, output_total, exited = self._watch(pid, res_r, out_r, started + timeout,
                                                       limits)
        else:
            _kill(pid)
            os.close(res_r)
            os.close(out_r)
            status, output_total, exited = "setup_failed", 0, False
        result_len, output_len = int(self.counts[0]), int(self.counts[1])
        drained = time.monotonic()
        exit_code = signal_number = None
        if exited:
            _, wait_status = os.waitpid(pid, 0)
            exit_code = os.WEXITSTATUS(wait_status) if os.WIFEXITED(wait_status) else None
            signal_number = os.WTERMSIG(wait_status) if os.WIFSIGNALED(wait_status) else None
        else:
            # The harness finished and closed its pipes; whatever is left of the process is
            # killed and reaped after we have answered.
            _kill(pid)
            self.unreaped = pid
        reply = {
            "id": job.get("id"), "status": status, "wall_ms": (time.monotonic() - started) * 1000,
            "exit_code": exit_code, "signal": signal_number,
            "result_len": result_len, "output_len": output_len, "output_total": output_total,
            "phases_ms": [(forked - started) * 1000, (drained - forked) * 1000,
                          (time.monotonic() - drained) * 1000],
        }
        return reply, result_len, output_len

    def _watch(self, pid: int, res_r: int, out_r: int, deadline: float,
               limits: dict[str, int]) -> tuple[str, int, bool]:
        """Wait for the child, collecting its result and output pipes.

        The pipes are enlarged and only drained on hang-up, exit or a periodic tick, so a
        job costs a couple of wake-ups instead of one per frame the child writes."""
        status = "ok"
        pidfd = os.pidfd_open(pid)
        poller = select.poll()
        poller.register(pidfd, select.POLLIN)
        for fd in (res_r, out_r):
            os.set_blocking(fd, False)
            poller.register(fd, 0)  # hang-up only: data is collected in bulk
        open_fds = {res_r, out_r}
        exited = False
        while True:
            status = self._drain(res_r, out_r, open_fds, limits)
            if status != "ok":
                break
            if not open_fds:
                end = self.counts[0]
                done = end >= len(DONE_FRAME) and memoryview(self.result_buffer)[
                    end - len(DONE_FRAME):end] == DONE_FRAME
                if done or exited:
                    break  # finished: no need to wait for the kernel to free its memory
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                status = "timeout"
                break
            for fd, _event in poller.poll(min(remaining, DRAIN_TICK_S) * 1000):
                poller.unregister(fd)
                if fd == pidfd:
                    exited = True
        _wipe(self.scratch, len(self.scratch))
        if status != "ok":
            _kill(pid)
            os.waitid(os.P_PIDFD, pidfd, os.WEXITED | os.WNOWAIT)
            exited = True
        os.close(pidfd)
        os.close(res_r)
        os.close(out_r)
        return status, int(self.counts[2]), exited

    def _drain(self, res_r: int, out_r: int, open_fds: set[int], limits: dict[str, int]) -> str:
        result_view = memoryview(self.result_buffer)
        output_view = memoryview(self.output_buffer)
        scratch = memoryview(self.scratch)
        counts = self.counts
        for fd in list(open_fds):
            while True:
                if fd == res_r:
                    if counts[0] >= limits["result_bytes"]:
                        return "result_limit"
                    target = result_view[counts[0]:limits["result_bytes"]]
                else:
                    target = (output_view[counts[1]:]
                              if counts[1] < len(output_view) else scratch)
                try:
                    count = os.readv(fd, [target])
                except BlockingIOError:
                    break
                if not count:
                    open_fds.discard(fd)
                    break
                if fd == res_r:
                    counts[0] += count
                else:
                    if target is not scratch:
                        counts[1] += count
                    counts[2] += count
                    if counts[2] > limits["output_kill"]:
                        return "output_limit"
        return "ok"

    def _child(self, job_len: int, timeout: float, fds: tuple[int, ...]) -> None:
        """In the forked child: isolate, report readiness on the private pipe, then unwind to
        main() (ChildStart), which drops the zygote and runs the job. Never returns."""
        try:
            os.setsid()
            if self.layers.get("ipc_namespace", (False, ""))[0]:
                _unshare(CLONE_NEWIPC, "NEWIPC")
            high = [os.dup(fd) for fd in fds]  # stdin, stdout, stderr, results, ready
            for target, fd in enumerate(high):
                os.dup2(fd, target)
            os.closerange(READY_FD + 1, 1 << 16)
            for name, step in (("rlimits", self._set_rlimits), ("uid_drop", self._drop_uid),
                               ("seccomp", self._load_seccomp)):
                if self.layers.get(name, (False, ""))[0]:
                    step(timeout)
            os.write(READY_FD, READY)
            os.close(READY_FD)
        except BaseException:
            os._exit(1)  # no word on the ready pipe: the zygote reports the set-up failure
        raise ChildStart(memoryview(self.job_buffer)[:job_len], self.harness["run"])


def _await_ready(fd: int, deadline: float) -> bool:
    """The child's set-up report: READY, or end-of-file when set-up failed (or the deadline)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    word = b""
    if poller.poll(max(0.0, min(deadline - time.monotonic(), READY_WAIT_S)) * 1000):
        word = os.read(fd, len(READY))
    os.close(fd)
    return word == READY


def _kill(pid: int) -> None:
    for kill in (os.killpg, os.kill):
        with contextlib.suppress(OSError):
            kill(pid, signal.SIGKILL)


def _vm_size() -> int:
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
    _unshare(CLONE_NEWNS, "NEWNS")
    _mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    # Large folios for the big shared libraries, as the host's page cache gives them: with
    # 4 KiB pages every job's child pays about 1 ms more mapping the same code.
    try:
        _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV,
               f"size={size},mode=0755,huge=within_size")
    except OSError:  # a kernel without transparent huge pages for tmpfs
        _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode=0755")
    for directory in plan["dirs"]:
        os.makedirs(root + directory, mode=0o755, exist_ok=True)
    for link, target in plan["symlinks"]:
        os.symlink(target, root + link)
    for path in plan["files"]:
        info = os.stat(path)
        with open(path, "rb") as src, open(root + path, "wb") as dst:
            offset = 0
            while offset < info.st_size:
                sent = os.sendfile(dst.fileno(), src.fileno(), offset, info.st_size - offset)
                if not sent:
                    raise OSError(f"{path} ended early")
                offset += sent
        # Readable by the jobs' uid, never writable or set-id; the modification time is kept
        # so the interpreter trusts the copied bytecode caches.
        os.chmod(root + path, (info.st_mode & 0o555) | 0o444)
        os.utime(root + path, ns=(info.st_atime_ns, info.st_mtime_ns))
    os.chdir(root)
    os.mkdir(".old")
    _check(_libc.syscall(SYS_PIVOT_ROOT, b".", b".old"), "pivot_root")
    os.chdir("/")
    _check(_libc.umount2(b"/.old", MNT_DETACH), "umount old root")
    os.rmdir("/.old")
    _mount(None, "/", None, MS_REMOUNT | MS_RDONLY | MS_NOSUID | MS_NODEV, None)


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
    _move_fd(memfd, CONFIG_FD)
    os.execve(executable, [executable, "-I", "-S", "-c", source, "--private-root"],
              dict(os.environ))


def _join_cgroup(path: str) -> None:
    with open(os.path.join(path, "cgroup.procs"), "w") as fh:
        fh.write(str(os.getpid()))


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


def main() -> None:
    if sys.argv[1:] == ["--private-root"]:  # re-executed inside the private root
        config = json.loads(_read_all(CONFIG_FD))
        os.close(CONFIG_FD)
    else:
        frame = _read_frame(0)
        if frame is None:
            return
        config = frame[0]
        _move_fd(os.open("/proc/self/status", os.O_RDONLY), STATUS_FD)
        _move_fd(os.open("/proc/self/ns/pid", os.O_RDONLY), PIDNS_FD)
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


if __name__ == "__main__":
    main()
