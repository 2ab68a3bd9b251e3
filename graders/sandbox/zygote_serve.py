"""The zygote's serving loop: one forked child per job, the job handed over in a buffer wiped
after each fork, the child's result and output pipes drained in bulk, the reply framed back to
the parent as opaque bytes it never parses.

Runs inside the zygote only (sent as text, see graders/sandbox/zygote.py): the standard library
and, once warm, NumPy.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import json
import os
import select
import struct
import time
from typing import Any

from graders.sandbox.zygote_layers import Isolation
from graders.sandbox.zygote_sys import (
    CLONE_NEWIPC,
    kill,
    libc,
    private_buffer,
    read_exact,
    read_into,
    unshare,
    wipe,
    write_frame,
)

READY = b"R"  # the child's word, on a pipe it closes before student code: layers are in place
# Set-up takes a millisecond of processor; a child silent this long is stuck. Not shortened to
# the job's limit: on a busy machine set-up can wait longer than a short limit for a processor,
# and the student's time starts when it is done (set-up runs no student code).
READY_WAIT_S = 5.0
READY_FD = 4  # where the child holds that pipe while it sets up
DRAIN_TICK_S = 0.02  # how often a running job's pipes are emptied
PIPE_SIZE = 1 << 20
_DONE = json.dumps({"kind": "done"}).encode()
DONE_FRAME = struct.pack(">II", len(_DONE), 0) + _DONE  # what the harness writes last


class ChildStart(BaseException):
    """Raised in a freshly forked child once its layers are in place: it unwinds every frame of
    the serving loop, so nothing of the zygote (its config, the previous job's reply, counters,
    buffers) stays reachable when the student's code runs. Not an Exception: nothing on the
    way may catch it."""

    def __init__(self, job: memoryview, run: Any) -> None:
        super().__init__()
        self.job = job
        self.run = run


class Zygote(Isolation):
    def __init__(self, config: dict[str, Any], proto_in: int, proto_out: int) -> None:
        super().__init__(config)
        self.proto_in = proto_in
        self.proto_out = proto_out
        self.unreaped = 0
        # The job being drained: kept in a buffer wiped after each job, so that no number of a
        # previous student's job lives in a Python object a later child could find.
        self.counts = (ctypes.c_int64 * 3)()  # result bytes, output kept, output total
        limits = config["limits"]
        # Student data (the job, the results, the output) only ever lives in these buffers,
        # wiped after each job, never in Python objects of ours that a later child could find.
        # The two large ones take memory only as far as jobs have written into them.
        self.job_buffer = private_buffer(1 << 20)
        self.result_buffer = private_buffer(limits["result_bytes"] + (1 << 16))
        self.output_buffer = bytearray(limits["output_keep"])
        self.scratch = bytearray(1 << 16)
        # The child-side harness is our own source, sent by the parent and run here before any
        # fork, so each child starts with it ready; student code never sees the zygote's copy.
        self.harness: dict[str, Any] = {"__name__": "harness"}
        exec(compile(config["harness"], "<harness>", "exec"), self.harness)


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
        self.harness["install_clock"]()
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
        # The heap's free pages back to the kernel: a child neither inherits nor copies them
        # (one it allocates into starts as a fresh zero page). glibc's; other C libraries
        # may not have it.
        with contextlib.suppress(AttributeError):
            libc.malloc_trim(0)

    # ---- jobs ------------------------------------------------------------------------------
    def serve(self) -> None:
        active = {name: {"active": ok, "detail": detail} for name, (ok, detail) in
                  self.layers.items()}
        write_frame(self.proto_out, {"hello": True, "pid": os.getpid(), "layers": active})
        while True:
            head = read_exact(self.proto_in, 8)
            if head is None:
                return
            hlen, plen = struct.unpack(">II", head)
            control = read_exact(self.proto_in, hlen)  # id and timeout: no student data
            if control is None:
                return
            header = json.loads(control)
            if plen > len(self.job_buffer):
                self.job_buffer = private_buffer(plen)
            if not read_into(self.proto_in, self.job_buffer, plen):
                return
            result_len = output_len = 0
            try:
                reply, result_len, output_len = self.run_job(header, plen)
                write_frame(self.proto_out, reply,
                             memoryview(self.result_buffer)[:result_len],
                             memoryview(self.output_buffer)[:output_len])
            except Exception as exc:
                write_frame(self.proto_out, {"id": header.get("id"), "status": "zygote_error",
                                              "detail": f"{type(exc).__name__}: {exc}"})
            finally:
                wipe(self.result_buffer, result_len)
                wipe(self.output_buffer, output_len)
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
        wipe(self.job_buffer, job_len)  # the child has its copy
        if pidns:
            self._reset_pidns()
        for fd in (in_r, out_w, res_w, ready_w):
            os.close(fd)
        # Set-up health comes on a pipe of its own that the child closes before the student's
        # code runs: nothing the student does (an exit code, a frame) can speak for it.
        ready = _await_ready(ready_r)
        forked = time.monotonic()
        if ready:
            status, output_total, exited = self._watch(pid, res_r, out_r, forked + timeout,
                                                       limits)
        else:
            kill(pid)
            os.close(res_r)
            os.close(out_r)
            status, output_total, exited = "setup_failed", 0, False
        result_len, output_len = int(self.counts[0]), int(self.counts[1])
        drained = time.monotonic()
        exit_code = signal_number = None
        cpu_ms = 0.0  # the processor time the child used: a lower bound of its own time
        if exited:
            _, wait_status, usage = os.wait4(pid, 0)
            cpu_ms = (usage.ru_utime + usage.ru_stime) * 1000
            exit_code = os.WEXITSTATUS(wait_status) if os.WIFEXITED(wait_status) else None
            signal_number = os.WTERMSIG(wait_status) if os.WIFSIGNALED(wait_status) else None
        else:
            # The harness finished and closed its pipes; whatever is left of the process is
            # killed and reaped after we have answered.
            kill(pid)
            self.unreaped = pid
        reply = {
            "id": job.get("id"), "status": status, "wall_ms": (time.monotonic() - started) * 1000,
            "exit_code": exit_code, "signal": signal_number, "cpu_ms": cpu_ms,
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
        wipe(self.scratch, len(self.scratch))
        if status != "ok":
            kill(pid)
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
                unshare(CLONE_NEWIPC, "NEWIPC")
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


def _await_ready(fd: int) -> bool:
    """The child's set-up report: READY, or end-of-file when set-up failed (or READY_WAIT_S)."""
    poller = select.poll()
    poller.register(fd, select.POLLIN)
    word = b""
    if poller.poll(READY_WAIT_S * 1000):
        word = os.read(fd, len(READY))
    os.close(fd)
    return word == READY

