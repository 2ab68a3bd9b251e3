"""What the sandbox enforces and what the operator requires of it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

# Every isolation layer, in the order `gradeformer doctor` prints them.
LAYERS: tuple[str, ...] = (
    "fresh_interpreter",
    "minimal_root",
    "network_namespace",
    "pid_namespace",
    "ipc_namespace",
    "uts_namespace",
    "cgroup_memory",
    "cgroup_pids",
    "rlimits",
    "uid_drop",
    "seccomp",
    "wall_timeout",
)

# Below these the service refuses student code unless the operator allows insecure mode. The
# cgroups, IPC and UTS namespaces are defence in depth: rlimits and seccomp already cover what
# they contain (memory, fork, SysV IPC).
DEFAULT_REQUIRED: frozenset[str] = frozenset({
    "fresh_interpreter", "minimal_root", "network_namespace", "pid_namespace",
    "rlimits", "uid_drop", "seccomp", "wall_timeout",
})


@dataclass(frozen=True)
class SandboxPolicy:
    timeout_s: float = 2.0  # wall clock per job; the whole process group is killed after it
    memory_mb: int = 256  # address space a job may add to the zygote's
    nproc: int = 1  # RLIMIT_NPROC for the job's uid: no second task, even without seccomp
    nofile: int = 32
    output_keep: int = 8 * 1024  # bytes of stdout/stderr kept for feedback
    output_kill: int = 1 << 20  # a job printing more than this is stopped
    result_bytes: int = 8 << 20  # everything a job may return (frames and arrays)
    salvage_elements: int = 1 << 16  # largest array read from a crashed function's locals
    cgroup_memory_mb: int = 1024  # per zygote, zygote included
    cgroup_pids: int = 16
    uid_base: int = 100_000  # jobs run as uid/gid uid_base + 64 * (pid % 4096) + slot
    required: frozenset[str] = DEFAULT_REQUIRED
    disabled: frozenset[str] = frozenset()  # layers not to set up (operators, tests)
    allow_insecure: bool = False

    def __post_init__(self) -> None:
        # A zero or negative limit would read as "unlimited" to setrlimit: refuse it outright.
        for name in ("timeout_s", "memory_mb", "nproc", "nofile", "output_keep", "output_kill",
                     "result_bytes", "salvage_elements", "cgroup_memory_mb", "cgroup_pids"):
            if getattr(self, name) <= 0:
                raise ValueError(f"sandbox policy: {name} must be positive")
        unknown = (self.required | self.disabled) - set(LAYERS)
        if unknown:
            raise ValueError(f"sandbox policy: unknown layers {sorted(unknown)}")

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> SandboxPolicy:
        """Read the operator's options (the mapping `graders.options.GradingOptions` reads the
        rest of) into a policy: each limit as `sandbox_<name>` (sandbox_timeout_s,
        sandbox_memory_mb, ...), the layers as `sandbox_required_layers` and
        `sandbox_disabled_layers`."""
        kwargs: dict[str, Any] = {}
        if options.get("allow_insecure_sandbox"):
            kwargs["allow_insecure"] = True
        for name, kind in LIMITS.items():
            value = options.get(f"sandbox_{name}")
            if value is not None:
                kwargs[name] = kind(value)
        if options.get("sandbox_required_layers") is not None:
            kwargs["required"] = frozenset(options["sandbox_required_layers"])
        if options.get("sandbox_disabled_layers") is not None:
            kwargs["disabled"] = frozenset(options["sandbox_disabled_layers"])
        return cls(**kwargs)


# The policy's limits an operator may set (GRADEFORMER_SANDBOX_<NAME>), with their type.
LIMITS: dict[str, type[int] | type[float]] = {
    "timeout_s": float, "memory_mb": int, "nproc": int, "nofile": int, "output_keep": int,
    "output_kill": int, "result_bytes": int, "salvage_elements": int, "cgroup_memory_mb": int,
    "cgroup_pids": int,
}
