"""The sandbox a grader uses: a small pool of zygotes, jobs in, validated outcomes out."""

from __future__ import annotations

import dataclasses
import os
import queue
import secrets
import signal
import threading
import weakref
from dataclasses import dataclass
from typing import Any

import numpy as np

from graders.sandbox.layers import LayerStatus, layer_statuses
from graders.sandbox.policy import SandboxPolicy
from graders.sandbox.protocol import CallResult, ModuleResult, ParsedResults, parse_results
from graders.sandbox.text import clean_text
from graders.sandbox.zygote import RawOutcome, ZygoteDied, ZygoteProcess

# A job's time limit is its own time (graders/sandbox/waiting.py; Sandbox._run_own_time): one
# stopped at the limit with less than OWN_SHARE of it its own ran slow for the machine's load
# and runs again, the limit stretched by the slowdown it met (times HEADROOM, at most
# MAX_STRETCH times the job's limit), up to STRETCHES times.
OWN_SHARE = 0.9
HEADROOM = 1.2
MAX_STRETCH = 20.0
STRETCHES = 2
KILLED = (signal.SIGKILL, signal.SIGXCPU)  # how RLIMIT_CPU ends a process


class SandboxUnavailable(Exception):
    """The sandbox could not run a job (zygote cannot start or keeps dying): our problem."""


class SandboxRefused(Exception):
    """Required isolation layers are missing and the operator has not allowed insecure mode."""

    def __init__(self, missing: list[str]) -> None:
        self.missing = missing
        super().__init__(
            "student code was not run: the sandbox lacks required layers "
            + ", ".join(missing) + " (see `gradeformer doctor`; an operator may allow an "
            "insecure sandbox explicitly)")


@dataclass(frozen=True)
class Construct:
    """The instance a method call is made on: `cls(*args, **kwargs)` (indexes into Job.arrays,
    as a call's), or, with `again`, the instance the call before this one was made on (state
    kept between calls)."""

    cls: str
    args: tuple[int, ...] = ()
    kwargs: tuple[tuple[str, int], ...] = ()
    again: bool = False


@dataclass(frozen=True)
class Call:
    function: str  # a function of the module, or with `init` a method of the instance
    args: tuple[int, ...]  # indexes into Job.arrays
    kwargs: tuple[tuple[str, int], ...] = ()  # (parameter name, index into Job.arrays)
    # Indexes of 0-d arrays passed as Python scalars (`.item()`): an int argument such as
    # d_model arrives as an int, as the question's caller would pass it; a 1-D one as a tuple
    # of them (a pair of ids fixed in the battery).
    items: tuple[int, ...] = ()
    init: Construct | None = None
    # Indexes of 0-d integer arrays passed as `np.random.default_rng(seed)` (an `rng` argument).
    generators: tuple[int, ...] = ()


@dataclass(frozen=True)
class Job:
    source: str
    arrays: tuple[np.ndarray[Any, Any], ...]
    calls: tuple[Call, ...]
    timeout_s: float | None = None
    # Seconds every clock the job's code reads is moved by (a second run's, graders/sandbox/
    # clock.py); not part of what the job computes, so not of its cache key.
    clock_shift_s: int = 0


@dataclass(frozen=True)
class JobOutcome:
    # completed: the harness reported every call; otherwise why the job stopped early.
    status: str  # completed, timeout, output_limit, result_limit, died, protocol
    module: ModuleResult | None
    calls: tuple[CallResult | None, ...]  # None: the call never reported (killed, crashed)
    output: str
    output_total: int
    wall_ms: float
    exit_code: int | None
    signal: int | None
    violations: tuple[str, ...]
    insecure: tuple[str, ...]  # required layers that were NOT active when this ran
    phases_ms: tuple[float, ...] = ()  # inside the zygote: fork, run, reap (benchmarks)
    waited_ms: float = 0.0  # of wall_ms, spent waiting for a processor (the machine's load)
    cpu_ms: float = 0.0  # processor time the job used (RawOutcome.cpu_ms)

    def stop_reason(self, timeout_s: float) -> str:
        """Why some calls have no result, in words for the student's feedback: nothing the
        program chose (an exit status, a signal, what it wrote on the result channel), since a
        program can choose those from its inputs; `stop_detail` has them for staff."""
        if self.status == "timeout":
            return f"the code was stopped after the {timeout_s:g} s time limit"
        if self.status == "output_limit":
            return "the code printed too much output and was stopped"
        if self.status == "result_limit":
            return "the code returned more data than the grader accepts and was stopped"
        if self.status == "protocol":
            return ("the code wrote to the grader's result channel, so none of its results "
                    "were used")
        if self.signal is not None:
            return "the process was killed"
        if self.exit_code:
            return "the process exited before finishing"
        return "the process ended before finishing"

    def stop_detail(self) -> str:
        """The program's own part of why the job stopped, for staff ("" when it completed)."""
        if self.status == "completed":
            return ""
        parts = [f"sandbox status {self.status}"]
        if self.status == "output_limit":
            parts.append(f"{self.output_total:,} bytes printed")
        if self.exit_code is not None:
            parts.append(f"exit status {self.exit_code}")
        if self.signal is not None:
            parts.append(f"signal {self.signal}")
        if self.violations:
            parts.append("result channel: " + "; ".join(self.violations))
        return "Sandbox: " + ", ".join(parts) + "."


def _encode_job(job: Job, policy: SandboxPolicy, timeout_s: float, seal: str
                ) -> tuple[dict[str, Any], bytes]:
    descs: list[dict[str, Any]] = []
    chunks: list[bytes] = []
    offset = 0
    for array in job.arrays:
        # C order, native byte order; a 0-d array stays 0-d (ascontiguousarray would make it
        # (1,), and a student's function may index or range over a scalar argument).
        native = np.asarray(array, dtype=array.dtype.newbyteorder("="), order="C")
        data = native.tobytes()
        descs.append({"dtype": native.dtype.str, "shape": list(native.shape),
                      "count": int(native.size), "offset": offset})
        chunks.append(data)
        offset += len(data)
    header = {
        "source": job.source, "timeout": timeout_s, "arrays": descs, "seal": seal,
        "stir": secrets.randbelow(2**62), "clock": int(job.clock_shift_s),
        "calls": [{"function": c.function, "args": list(c.args),
                   "kwargs": [[name, index] for name, index in c.kwargs],
                   "items": list(c.items), "generators": list(c.generators),
                   "init": None if c.init is None else {
                       "cls": c.init.cls, "args": list(c.init.args), "again": c.init.again,
                       "kwargs": [[name, index] for name, index in c.init.kwargs]}}
                  for c in job.calls],
        "caps": {"result_bytes": policy.result_bytes - 65536,
                 "salvage_elements": policy.salvage_elements},
    }
    return header, b"".join(chunks)


def _status(raw: RawOutcome, parsed: ParsedResults) -> str:
    if parsed.violations:
        return "protocol"
    if raw.status != "ok":
        return raw.status
    return "completed" if parsed.done else "died"


def _outcome(raw: RawOutcome, parsed: ParsedResults, module: ModuleResult | None,
             calls: tuple[CallResult | None, ...], status: str, missing: list[str]
             ) -> JobOutcome:
    return JobOutcome(
        status=status, module=module, calls=calls,
        # The kept output is already at most output_keep bytes, so never more characters.
        output=clean_text(raw.output, len(raw.output) + 1, multiline=True),
        output_total=raw.output_total,
        wall_ms=raw.wall_ms, exit_code=raw.exit_code, signal=raw.signal,
        violations=tuple(parsed.violations), insecure=tuple(missing), phases_ms=raw.phases_ms,
        waited_ms=raw.waited_ms, cpu_ms=raw.cpu_ms,
    )


def _own_ms(raw: RawOutcome) -> float:
    """The job's own time: its wall time less its wait for a processor, and at least the
    processor time it used. The wait is sampled from outside (it counts the zygote's wait too,
    though the zygote waiting beside a running child costs the child nothing), so on a busy
    machine it can swallow nearly all of the wall time; the processor time is exact: an
    endless loop stopped at its limit used the limit, however busy the machine."""
    return max(raw.wall_ms - raw.waited_ms, min(raw.cpu_ms, raw.wall_ms))


def _stop_all(zygotes: list[ZygoteProcess], owner_pid: int) -> None:
    if os.getpid() != owner_pid:
        return  # a forked copy of the owner: the zygotes are not ours to stop
    for zygote in zygotes:
        zygote.stop()


class Sandbox:
    """Thread-safe; one per worker process (GradingResources.shared keeps it for its lifetime)."""

    def __init__(self, policy: SandboxPolicy | None = None, size: int = 1) -> None:
        self.policy = policy or SandboxPolicy()
        self.size = max(1, size)
        self._lock = threading.Lock()
        self._zygotes: list[ZygoteProcess] = []
        self._idle: queue.Queue[ZygoteProcess] = queue.Queue()
        self._pid = -1
        self._finalizer: weakref.finalize[Any, Any] | None = None
        self._counter = 0
        self._missing: list[str] = []

    def _ensure_started(self) -> None:
        with self._lock:
            if self._zygotes and self._pid == os.getpid():
                return
            # First use, or we are a forked copy of a process that had zygotes: start our own.
            self._pid = os.getpid()
            self._zygotes = [ZygoteProcess(slot, self.policy) for slot in range(self.size)]
            self._idle = queue.Queue()
            for zygote in self._zygotes:
                try:
                    zygote.start()
                except (ZygoteDied, OSError) as exc:
                    raise SandboxUnavailable(f"the zygote could not start: {exc}") from exc
                self._idle.put(zygote)
            self._finalizer = weakref.finalize(self, _stop_all, self._zygotes, self._pid)
            self._missing = [layer.name for layer in
                             layer_statuses(self._zygotes[0].layers, self.policy)
                             if layer.required and not layer.active]

    def layers(self) -> list[LayerStatus]:
        self._ensure_started()
        return layer_statuses(self._zygotes[0].layers, self.policy)

    def missing_required(self) -> list[str]:
        """Required layers that are not active (as found when the zygotes started)."""
        self._ensure_started()
        return list(self._missing)

    def run(self, job: Job) -> JobOutcome:
        """Run a job. Raises SandboxRefused below the required layers (unless the policy allows
        insecure mode) and SandboxUnavailable when the zygote cannot be (re)started."""
        missing = self._allowed()
        raw, seal = self._run_own_time(job, self._timeout(job))
        parsed = parse_results(raw.result, len(job.calls), seal)
        return _outcome(raw, parsed, parsed.module, tuple(
            parsed.calls.get(i) for i in range(len(job.calls))), _status(raw, parsed), missing)

    def _run_own_time(self, job: Job, timeout_s: float) -> tuple[RawOutcome, str]:
        """The job's time limit counts its own time, not the time it waited for a processor
        (graders/sandbox/waiting.py): a job stopped at the limit having had less than OWN_SHARE
        of it runs again with the limit stretched by the load it met, up to STRETCHES times;
        then the load is the sandbox's failure (SandboxUnavailable: grader_error), never the
        student's timeout."""
        limit = timeout_s
        for _ in range(STRETCHES + 1):
            # A fresh mark per run: the harness puts it on every module and call frame and
            # wipes it before the student's code runs, so a program that writes frames of its
            # own (os.write on the result pipe) does not know what to put on them.
            seal = secrets.token_hex(16)
            header, payload = _encode_job(job, self.policy, limit, seal)
            raw = self._dispatch(header, payload, limit)
            own_ms = _own_ms(raw)
            if limit > timeout_s and raw.signal in KILLED and own_ms >= timeout_s * 1000:
                # Stretched, it ran past its own limit and met the CPU limit (the load fell):
                # on a machine with time to spare the limit would have stopped it first.
                return dataclasses.replace(raw, status="timeout"), seal
            if raw.status != "timeout" or own_ms >= OWN_SHARE * timeout_s * 1000:
                return raw, seal
            slowdown = raw.wall_ms / max(own_ms, 1.0)
            limit = min(timeout_s * MAX_STRETCH, max(limit, timeout_s * slowdown * HEADROOM))
        raise SandboxUnavailable(
            f"the machine was too busy: the code waited {raw.waited_ms / 1000:.1f} s of "
            f"{raw.wall_ms / 1000:.1f} s for a processor, {STRETCHES + 1} runs in a row")

    def _allowed(self) -> list[str]:
        missing = self.missing_required()
        if missing and not self.policy.allow_insecure:
            raise SandboxRefused(missing)
        return missing

    def _timeout(self, job: Job) -> float:
        return job.timeout_s if job.timeout_s is not None else self.policy.timeout_s

    def _dispatch(self, header: dict[str, Any], payload: bytes, timeout_s: float) -> RawOutcome:
        zygote = self._idle.get()
        try:
            with self._lock:
                self._counter += 1
                job_id = self._counter
            raw = None
            for attempt in range(2):
                try:
                    if not zygote.alive():
                        zygote.start()
                        restarted = [layer.name for layer in
                                     layer_statuses(zygote.layers, self.policy)
                                     if layer.required and not layer.active]
                        if restarted and not self.policy.allow_insecure:
                            raise SandboxRefused(restarted)
                    raw = zygote.run(header, payload, timeout_s, job_id)
                    break
                except (ZygoteDied, OSError) as exc:
                    if attempt == 1:
                        raise SandboxUnavailable(f"the sandbox failed twice: {exc}") from exc
            assert raw is not None
        finally:
            self._idle.put(zygote)
        if raw.status == "setup_failed":
            # Reported by the zygote from the child's private ready pipe, never from anything
            # the student's code can produce.
            raise SandboxUnavailable("a job's isolation layers could not be set up")
        return raw

    def job_uids(self) -> list[int]:
        """The unprivileged uid each zygote's jobs run as."""
        self._ensure_started()
        return [z.uid for z in self._zygotes]

    def zygote_pids(self) -> list[int]:
        """For tests and `doctor`: the zygotes' process ids (0 when not running)."""
        return [z.process.pid if z.process is not None else 0 for z in self._zygotes]

    def close(self) -> None:
        with self._lock:
            if self._finalizer is not None:
                self._finalizer()
                self._finalizer = None
            self._zygotes = []
