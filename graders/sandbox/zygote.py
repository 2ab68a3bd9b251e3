"""One zygote process, seen from the trusted parent: start, send jobs, restart when it dies."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import select
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from graders.sandbox.cgroup import ZygoteCgroups, sweep_stale
from graders.sandbox.policy import SandboxPolicy
from graders.sandbox.protocol import FRAME_HEAD, encode_frame
from graders.sandbox.root import root_plan
from graders.sandbox.seccomp_filter import filter_bpf, policy_summary
from graders.sandbox.text import clean_text
from graders.sandbox.waiting import WaitMeter

HERE = Path(__file__).resolve().parent
# The modules the zygote runs, each after those it imports. They are sent as text and made
# into modules there by ZYGOTE_LOADER (no file of gradeformer's is in the zygote's root, nor on
# its path); they import only the standard library and each other (NumPy once serving).
ZYGOTE_MODULES = ("zygote_sys", "zygote_layers", "zygote_serve", "zygote_main")
_LOADER = """\
import sys, types
for _name, _source in {sources!r}:
    _module = sys.modules[_name] = types.ModuleType(_name)
    exec(compile(_source, "<" + _name + ">", "exec"), _module.__dict__)
del _name, _source, _module
"""
ZYGOTE_LOADER = _LOADER.format(sources=tuple(
    (f"graders.sandbox.{name}", (HERE / f"{name}.py").read_text()) for name in ZYGOTE_MODULES))
ZYGOTE_SOURCE = ZYGOTE_LOADER + 'sys.modules["graders.sandbox.zygote_main"].main()\n'
# The child-side harness, and the clocks it moves per run (one namespace in the zygote).
HARNESS_SOURCE = "\n".join((HERE / f"{name}.py").read_text()
                            for name in ("harness_main", "harness_clock"))
START_TIMEOUT_S = 20.0
# Beyond the job's own timeout: fork, teardown and relaying, before we give up on the zygote;
# longer by the time the zygote and the job waited for a processor (a loaded machine), up to
# MAX_WAIT_S more.
RELAY_MARGIN_S = 3.0
SETUP_WAIT_S = 5.0  # zygote_serve.READY_WAIT_S: the job's time starts once its child is set up
MAX_WAIT_S = 120.0
WAIT_TICK_S = 0.05  # how often the job's wait for a processor is sampled
ENVIRONMENT = {
    "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
    "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "0",
}


_CGROUP_SERIAL = itertools.count()


class ZygoteDied(Exception):
    """The zygote stopped answering or exited; the pool restarts it."""


@dataclass(frozen=True)
class RawOutcome:
    """A job's reply from the zygote: its status plus the child's untrusted bytes."""

    status: str  # ok, timeout, output_limit, result_limit, setup_failed, zygote_error
    exit_code: int | None
    signal: int | None
    wall_ms: float
    result: bytes
    output: bytes
    output_total: int
    phases_ms: tuple[float, ...] = ()  # fork, run until the pipes closed, reaping
    # Of wall_ms, how long the zygote and the job waited for a processor (graders/sandbox/
    # waiting.py): the machine's load, not the code's own time.
    waited_ms: float = 0.0
    # The processor time the job's child used (its rusage once reaped; 0 when the zygote
    # answered before reaping it, a job that finished): time it ran, so its own, whatever the
    # load, and measured exactly where the wait is sampled.
    cpu_ms: float = 0.0


def _root_config() -> dict[str, Any]:
    """What the zygote needs to build its private root, and a host file to check it by."""
    witness = str(Path(np.__file__).resolve())
    try:
        plan = root_plan()
        info = os.stat(witness)
    except (OSError, ValueError) as exc:  # the zygote then reports the root inactive
        return {"root_error": f"the runtime's files cannot be listed: {exc}",
                "sys_path": [str(Path(witness).parent.parent)]}
    return {
        "root": plan.as_config(), "root_bytes": plan.size + (32 << 20),
        "root_detail": ("private read-only tmpfs, re-executed from: a copy of "
                        + plan.describe() + "; no /etc, /proc, /tmp, /dev, grader or other "
                        "host files, no host file mapped"),
        "host_file": [witness, info.st_dev, info.st_ino], "sys_path": plan.sys_path,
    }


class ZygoteProcess:
    def __init__(self, slot: int, policy: SandboxPolicy) -> None:
        self.slot = slot
        self.policy = policy
        self.process: subprocess.Popen[bytes] | None = None
        self.cgroups: ZygoteCgroups | None = None
        self.layers: dict[str, tuple[bool, str]] = {}
        self.starts = 0

    @property
    def uid(self) -> int:
        # Distinct per process and slot, so that jobs running at the same time in different
        # worker processes never share a uid (and its RLIMIT_NPROC count).
        return self.policy.uid_base + (os.getpid() % 4096) * 64 + self.slot % 64

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def start(self) -> None:
        self.stop()
        policy = self.policy
        sweep_stale()
        # Named by our pid (stale-group sweeping reads it) and a number no other zygote of this
        # process has: closing one sandbox kills whatever is in its groups, never another's.
        self.cgroups = ZygoteCgroups.create(
            f"{os.getpid()}-{self.slot}-{next(_CGROUP_SERIAL)}", policy.cgroup_memory_mb << 20,
            policy.cgroup_pids)
        self.starts += 1
        root_dir = tempfile.mkdtemp(prefix="gradeformer-root-")
        try:
            bpf = filter_bpf().hex()
            seccomp_error = ""
        except (ImportError, OSError) as exc:
            bpf, seccomp_error = "", f"{type(exc).__name__}: {exc}"
        cgroups: dict[str, Any] = {}
        for layer in ("cgroup_memory", "cgroup_pids"):
            if layer in policy.disabled:
                cgroups[layer + "_error"] = "disabled by the operator"
            elif layer in self.cgroups.paths:
                cgroups[layer] = str(self.cgroups.paths[layer])
                cgroups[layer + "_limit"] = self.cgroups.limits[layer]
            else:
                cgroups[layer + "_error"] = self.cgroups.errors.get(layer, "unavailable")
        config = {
            **_root_config(), "zygote": ZYGOTE_SOURCE,
            "uid": self.uid, "root_dir": root_dir, "cgroups": cgroups,
            "disable": sorted(policy.disabled), "seccomp_bpf": bpf,
            "seccomp_summary": policy_summary(), "harness": HARNESS_SOURCE,
            "limits": {
                "cpu_seconds": max(1, int(policy.timeout_s + 0.999)) + 1,
                "memory_mb": policy.memory_mb, "nproc": policy.nproc, "nofile": policy.nofile,
                "output_keep": policy.output_keep, "output_kill": policy.output_kill,
                "result_bytes": policy.result_bytes,
            },
        }
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-S", "-c", ZYGOTE_SOURCE],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
            env=ENVIRONMENT, cwd="/", close_fds=True, start_new_session=True,
        )
        try:
            self._send(encode_frame(config))
            hello, _ = self._receive(time.monotonic() + START_TIMEOUT_S)
        except ZygoteDied:
            self.stop()
            raise
        finally:
            with contextlib.suppress(OSError):
                os.rmdir(root_dir)  # empty on our side: the zygote mounted over it privately
        layers = hello.get("layers", {})
        self.layers = {clean_text(str(name), 40): (bool(v.get("active")),
                                                   clean_text(str(v.get("detail", "")), 500))
                       for name, v in layers.items()}
        if seccomp_error and not self.layers.get("seccomp", (False, ""))[0]:
            self.layers["seccomp"] = (False, seccomp_error)

    def run(self, job: dict[str, Any], payload: bytes, timeout_s: float, job_id: int
            ) -> RawOutcome:
        if not self.alive():
            raise ZygoteDied("the zygote is not running")
        # The zygote reads only the small control header; the job itself travels as an opaque
        # blob that only the child parses. The job number stays in the control header: a
        # child learns nothing of how many jobs ran before it.
        control = {"id": job_id, "timeout": timeout_s}
        assert self.process is not None
        meter = WaitMeter(self.process.pid)
        self._send(encode_frame(control, encode_frame(job, payload)))
        reply, data = self._receive(time.monotonic() + SETUP_WAIT_S + timeout_s + RELAY_MARGIN_S,
                                    meter)
        if reply.get("id") != job_id:
            self.stop()
            raise ZygoteDied("the zygote answered for another job")
        if reply.get("status") == "zygote_error":
            raise ZygoteDied(f"the zygote failed: {clean_text(str(reply.get('detail')), 300)}")
        result_len = int(reply.get("result_len", 0))
        return RawOutcome(
            status=str(reply.get("status")), exit_code=reply.get("exit_code"),
            signal=reply.get("signal"), wall_ms=float(reply.get("wall_ms", 0.0)),
            result=data[:result_len], output=data[result_len:],
            output_total=int(reply.get("output_total", 0)),
            phases_ms=tuple(float(x) for x in reply.get("phases_ms", ())),
            waited_ms=meter.sample() * 1000, cpu_ms=float(reply.get("cpu_ms") or 0.0),
        )

    def _send(self, data: bytes) -> None:
        assert self.process is not None and self.process.stdin is not None
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            # Its pipe can close well before it is reaped (a dying zygote first frees its
            # private root): stop it now, so that a retry starts a new one.
            self.stop()
            raise ZygoteDied(f"cannot write to the zygote: {exc}") from exc

    def _receive(self, deadline: float, meter: WaitMeter | None = None
                 ) -> tuple[dict[str, Any], bytes]:
        assert self.process is not None and self.process.stdout is not None
        fd = self.process.stdout.fileno()
        head = self._read(fd, FRAME_HEAD.size, deadline, meter)
        hlen, plen = FRAME_HEAD.unpack(head)
        if hlen > 1 << 20 or plen > self.policy.result_bytes + self.policy.output_keep + 4096:
            raise ZygoteDied("the zygote sent an oversized frame")
        header = json.loads(self._read(fd, hlen, deadline, meter))
        payload = self._read(fd, plen, deadline, meter) if plen else b""
        if not isinstance(header, dict):
            raise ZygoteDied("the zygote sent a malformed frame")
        return header, payload

    def _read(self, fd: int, n: int, deadline: float, meter: WaitMeter | None) -> bytes:
        chunks: list[bytes] = []
        got = 0
        while got < n:
            now = time.monotonic()
            if meter is not None and now - meter.sampled >= WAIT_TICK_S:
                meter.sample()
            waited = 0.0 if meter is None else min(meter.last, MAX_WAIT_S)
            remaining = deadline + waited - now
            if remaining <= 0:
                self.stop()
                raise ZygoteDied("the zygote did not answer in time")
            tick = remaining if meter is None else min(remaining, WAIT_TICK_S)
            ready, _, _ = select.select([fd], [], [], tick)
            if not ready:
                continue
            chunk = os.read(fd, n - got)
            if not chunk:
                self.stop()
                raise ZygoteDied("the zygote exited")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is not None:
            if process.poll() is None:
                process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=5)
            for stream in (process.stdin, process.stdout):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()
        if self.cgroups is not None:
            self.cgroups.kill_all()
            self.cgroups.remove()
            self.cgroups = None

