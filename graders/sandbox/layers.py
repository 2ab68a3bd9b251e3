"""Which isolation layers are active, as `gradeformer doctor` prints them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from graders.sandbox.policy import LAYERS, SandboxPolicy


@dataclass(frozen=True)
class LayerStatus:
    name: str
    active: bool
    detail: str
    required: bool


def layer_statuses(
    found: Mapping[str, tuple[bool, str]], policy: SandboxPolicy
) -> list[LayerStatus]:
    """The zygote's own report, completed with the layers the parent enforces."""
    statuses: list[LayerStatus] = []
    for name in LAYERS:
        if name == "wall_timeout":
            active, detail = True, (
                f"{policy.timeout_s:g} s per job, then the job's whole process group (and PID "
                f"namespace) is killed; output capped at {policy.output_kill >> 10} KiB, "
                f"results at {policy.result_bytes >> 20} MiB")
        else:
            active, detail = found.get(name, (False, "not reported by the zygote"))
        statuses.append(LayerStatus(name, active, detail, name in policy.required))
    return statuses
