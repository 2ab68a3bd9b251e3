"""Per-zygote cgroups (v1 memory and pids controllers), nested under our own cgroup."""

from __future__ import annotations

import contextlib
import os
import signal
from dataclasses import dataclass, field
from pathlib import Path

CGROUP_ROOT = Path("/sys/fs/cgroup")


def _own_path(controller: str) -> str | None:
    """Our cgroup in `controller`'s hierarchy, so a zygote stays inside any limit we live in."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controller in controllers.split(","):
            return path
    return None


@dataclass
class ZygoteCgroups:
    """The memory and pids cgroups of one zygote; what could not be created says why."""

    paths: dict[str, Path] = field(default_factory=dict)  # layer name -> directory
    limits: dict[str, str] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    @classmethod
    def create(cls, name: str, memory_bytes: int, pids_max: int) -> ZygoteCgroups:
        made = cls()
        wanted = (("cgroup_memory", "memory", "memory.limit_in_bytes", str(memory_bytes),
                   f"memory limit {memory_bytes >> 20} MiB"),
                  ("cgroup_pids", "pids", "pids.max", str(pids_max), f"at most {pids_max} tasks"))
        for layer, controller, knob, value, detail in wanted:
            base = CGROUP_ROOT / controller
            own = _own_path(controller)
            if not (base / "cgroup.procs").exists() or own is None:
                made.errors[layer] = f"no cgroup v1 {controller} hierarchy at {base}"
                continue
            directory = base / own.lstrip("/") / f"gradeformer-{name}"
            try:
                directory.mkdir(exist_ok=True)
                (directory / knob).write_text(value)
            except OSError as exc:
                made.errors[layer] = f"cannot create {directory}: {exc.strerror}"
                continue
            made.paths[layer] = directory
            made.limits[layer] = detail
        return made

    def kill_all(self) -> None:
        """SIGKILL anything still inside (a zygote's orphans), before removing the group."""
        for directory in self.paths.values():
            try:
                pids = (directory / "cgroup.procs").read_text().split()
            except OSError:
                continue
            for pid in pids:
                with contextlib.suppress(OSError, ValueError):
                    os.kill(int(pid), signal.SIGKILL)

    def remove(self) -> None:
        for directory in self.paths.values():
            with contextlib.suppress(OSError):  # still busy: removed by the next sweep
                directory.rmdir()
        self.paths.clear()


def sweep_stale() -> None:
    """Remove empty gradeformer cgroups left by processes that died without closing."""
    for controller in ("memory", "pids"):
        own = _own_path(controller)
        if own is None:
            continue
        parent = CGROUP_ROOT / controller / own.lstrip("/")
        try:
            stale = [p for p in parent.glob("gradeformer-*") if p.is_dir()]
        except OSError:
            continue
        for directory in stale:
            owner = directory.name.removeprefix("gradeformer-").split("-")[0]
            if owner.isdigit() and Path(f"/proc/{owner}").exists():
                continue
            with contextlib.suppress(OSError):
                directory.rmdir()
