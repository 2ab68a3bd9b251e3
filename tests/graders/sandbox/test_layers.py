"""What `gradeformer doctor` reports, and the refusal below the required layers."""

from __future__ import annotations

import pytest

from graders.sandbox import (
    LAYERS,
    Sandbox,
    SandboxPolicy,
    SandboxRefused,
    probe_layers,
)
from tests.graders.sandbox.conftest import CORRECT, job


def test_probe_reports_every_layer_in_order() -> None:
    layers = probe_layers()
    assert [layer.name for layer in layers] == list(LAYERS)
    missing = [layer.name for layer in layers if layer.required and not layer.active]
    if missing:
        pytest.skip(f"this machine cannot provide {missing}")
    assert all(layer.detail for layer in layers)


def test_a_disabled_layer_is_reported_inactive_and_refused() -> None:
    policy = SandboxPolicy(disabled=frozenset({"seccomp", "ipc_namespace"}))
    box = Sandbox(policy)
    try:
        layers = {layer.name: layer for layer in box.layers()}
        assert not layers["seccomp"].active
        assert layers["seccomp"].detail == "disabled by the operator"
        assert not layers["ipc_namespace"].active
        with pytest.raises(SandboxRefused, match="seccomp"):
            box.run(job(CORRECT))
    finally:
        box.close()


def test_the_minimum_is_configurable() -> None:
    policy = SandboxPolicy(disabled=frozenset({"seccomp"}),
                           required=frozenset({"uid_drop", "rlimits"}))
    box = Sandbox(policy)
    try:
        if box.missing_required():
            pytest.skip(f"this machine cannot provide {box.missing_required()}")
        outcome = box.run(job(CORRECT))
        assert outcome.status == "completed" and outcome.insecure == ()
    finally:
        box.close()


def test_a_probe_that_cannot_start_reports_why(monkeypatch: pytest.MonkeyPatch) -> None:
    import graders.sandbox.zygote as zygote

    monkeypatch.setattr(zygote, "ZYGOTE_SOURCE", "raise SystemExit(3)")
    layers = probe_layers()
    assert not any(layer.active for layer in layers if layer.name != "wall_timeout")
    assert "could not start" in layers[0].detail


@pytest.mark.parametrize("field", ["timeout_s", "memory_mb", "nproc", "nofile", "output_kill"])
def test_a_policy_without_limits_is_rejected(field: str) -> None:
    with pytest.raises(ValueError, match=field):
        SandboxPolicy(**{field: 0})


def test_without_capabilities_the_layers_degrade_honestly() -> None:
    import json
    import shutil
    import subprocess
    import sys

    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("setpriv (util-linux) is not installed")
    script = (
        "import json\n"
        "from graders.sandbox import probe_layers\n"
        "print(json.dumps({l.name: l.active for l in probe_layers()}))\n")
    done = subprocess.run([setpriv, "--bounding-set=-all", "--inh-caps=-all", sys.executable,
                           "-c", script], capture_output=True, text=True, timeout=60)
    if done.returncode != 0 and "setpriv" in done.stderr:
        pytest.skip(f"cannot drop capabilities here: {done.stderr.strip()}")
    active = json.loads(done.stdout.strip().splitlines()[-1])
    for layer in ("minimal_root", "network_namespace", "pid_namespace", "uid_drop"):
        assert active[layer] is False, layer
    assert active["seccomp"] is True and active["rlimits"] is True


def test_the_policy_names_the_allow_list_and_the_root() -> None:
    from graders.sandbox import LayerStatus, policy_facts
    from graders.sandbox.seccomp_filter import ALLOWED, ALLOWED_WITH

    facts = dict(policy_facts())
    assert f"allow-list of {len(ALLOWED) + len(ALLOWED_WITH)} system calls" in facts["seccomp"]
    assert facts["root"].startswith("private read-only tmpfs")
    assert "exit code" in facts["set-up health"]
    degraded = dict(policy_facts(layers=[
        LayerStatus("minimal_root", False, "PermissionError: unshare(NEWNS)", True),
        LayerStatus("seccomp", False, "no filter was given", True)]))
    assert "NOT private" in degraded["root"] and "unshare" in degraded["root"]
    assert degraded["seccomp"].startswith("NO FILTER")


def test_a_root_that_cannot_be_planned_is_reported_and_nothing_else_degrades(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import graders.sandbox.zygote as zygote_module

    def unreadable() -> None:
        raise OSError("the runtime's directory is unreadable")

    monkeypatch.setattr(zygote_module, "root_plan", unreadable)
    box = Sandbox(SandboxPolicy(allow_insecure=True))
    try:
        inactive = {layer.name: layer.detail for layer in box.layers() if not layer.active}
    finally:
        box.close()
    assert list(inactive) == ["minimal_root"]
    assert "unreadable" in inactive["minimal_root"]
