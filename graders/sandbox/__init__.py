"""Running untrusted student code: zygote fork servers, isolation layers, a result protocol
that never unpickles. See zygote_main.py for what happens inside."""

from graders.sandbox.layers import LayerStatus
from graders.sandbox.policy import DEFAULT_REQUIRED, LAYERS, SandboxPolicy
from graders.sandbox.pool import (
    Call,
    Construct,
    Job,
    JobOutcome,
    Sandbox,
    SandboxRefused,
    SandboxUnavailable,
)
from graders.sandbox.probe import policy_facts, probe_layers
from graders.sandbox.protocol import CallResult, ModuleResult, StudentError, Value

__all__ = [
    "DEFAULT_REQUIRED",
    "LAYERS",
    "Call",
    "CallResult",
    "Construct",
    "Job",
    "JobOutcome",
    "LayerStatus",
    "ModuleResult",
    "Sandbox",
    "SandboxPolicy",
    "SandboxRefused",
    "SandboxUnavailable",
    "StudentError",
    "Value",
    "policy_facts",
    "probe_layers",
]
