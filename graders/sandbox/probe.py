"""What `gradeformer doctor` reports of the sandbox: the layers a real zygote sets up, and what
the sandbox enforces by construction."""

from __future__ import annotations

from collections.abc import Sequence

from graders.sandbox.layers import LayerStatus, layer_statuses
from graders.sandbox.policy import LAYERS, SandboxPolicy
from graders.sandbox.pool import Sandbox, SandboxUnavailable
from graders.sandbox.protocol import MAX_TEXT
from graders.sandbox.root import root_plan
from graders.sandbox.seccomp_filter import policy_summary


def policy_facts(policy: SandboxPolicy | None = None,
                 layers: Sequence[LayerStatus] = ()) -> list[tuple[str, str]]:
    """What the sandbox enforces by construction, beside the layers found active: the filter's
    kind and size, what the root is, how a child starts, what crosses back to the parent. A
    fact that rests on a layer reported inactive in `layers` says so instead."""
    policy = policy or SandboxPolicy()
    try:
        root = "private read-only tmpfs per zygote, re-executed from: " + root_plan().describe()
    except (OSError, ValueError) as exc:
        root = f"cannot be planned here: {exc}"
    inactive = {layer.name: layer.detail for layer in layers if not layer.active}
    seccomp = policy_summary()
    if "seccomp" in inactive:
        seccomp = f"NO FILTER: {inactive['seccomp']}"
    root += "; no host file bound or mapped"
    if "minimal_root" in inactive:
        root = f"the host's own root, NOT private: {inactive['minimal_root']}"
    limits = (f"{policy.timeout_s:g} s wall clock, {policy.memory_mb} MiB address space, "
              f"{policy.nproc} process and {policy.nofile} files per job; output kept "
              f"{policy.output_keep >> 10} KiB, stopped past {policy.output_kill >> 10} KiB; "
              f"results {policy.result_bytes >> 20} MiB; per zygote "
              f"{policy.cgroup_memory_mb} MiB and {policy.cgroup_pids} tasks")
    return [
        ("limits", limits),
        ("seccomp", seccomp),
        ("root", root),
        ("child state", "each child unwinds the zygote's frames and drops its config, layer "
                        "reports, buffers and the previous job's reply before student code; "
                        "every child starts from the same heap"),
        ("set-up health", "reported on a private pipe the child closes before student code; "
                          "its exit code is only ever the student's"),
        ("text from children", f"valid UTF-8, control characters and escape sequences removed, "
                               f"capped (messages {MAX_TEXT} characters, output "
                               f"{policy.output_keep >> 10} KiB)"),
    ]


def probe_layers(policy: SandboxPolicy | None = None) -> list[LayerStatus]:
    """Start a real zygote, let it set up every layer and verify them from inside a job's
    child, and report what is active. Never raises: a zygote that cannot start shows as every
    layer inactive, with the reason."""
    policy = policy or SandboxPolicy()
    sandbox = Sandbox(policy)
    try:
        return sandbox.layers()
    except SandboxUnavailable as exc:
        reason = str(exc)
        return layer_statuses({name: (False, reason) for name in LAYERS}, policy)
    finally:
        sandbox.close()
