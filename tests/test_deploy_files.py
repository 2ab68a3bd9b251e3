"""The shipped deployment files agree with what the sandbox needs (the containers themselves are
checked by `make docker-test`, tests/docker)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

REPO = Path(__file__).resolve().parent.parent
ZYGOTE_CALLS = {"unshare", "mount", "umount2", "pivot_root", "setns", "setresuid", "setgroups",
                "prctl", "seccomp", "execve", "wait4", "kill"}


def _profile() -> dict:
    return json.loads((REPO / "deploy" / "seccomp-worker.json").read_text())


def test_the_worker_profile_allows_the_zygote_and_refuses_the_rest() -> None:
    profile = _profile()
    assert profile["defaultAction"] == "SCMP_ACT_ERRNO"
    allowed = {n for rule in profile["syscalls"] if rule["action"] == "SCMP_ACT_ALLOW"
               for n in rule["names"]}
    assert allowed >= ZYGOTE_CALLS
    for refused in ("bpf", "ptrace", "kexec_load", "init_module", "keyctl", "userfaultfd",
                    "open_by_handle_at", "perf_event_open", "io_uring_setup", "clone3"):
        assert refused not in allowed, refused


def test_user_namespaces_are_refused_by_argument() -> None:
    rules = [r for r in _profile()["syscalls"] if "unshare" in r["names"]]
    assert len(rules) == 1 and set(rules[0]["names"]) == {"unshare", "clone"}
    (arg,) = rules[0]["args"]
    assert arg == {"index": 0, "value": 0x10000000, "valueTwo": 0, "op": "SCMP_CMP_MASKED_EQ"}


def test_compose_gives_the_worker_exactly_the_documented_privileges() -> None:
    compose = yaml.safe_load((REPO / "deploy" / "compose.yaml").read_text())
    worker, api = compose["services"]["worker"], compose["services"]["api"]
    assert worker["cap_drop"] == ["ALL"]
    assert sorted(worker["cap_add"]) == ["KILL", "SETGID", "SETUID", "SYS_ADMIN"]
    assert worker["user"] == "0" and worker["read_only"] is True
    assert "seccomp:seccomp-worker.json" in worker["security_opt"]
    assert "no-new-privileges:true" in worker["security_opt"]
    assert api["cap_drop"] == ["ALL"] and "cap_add" not in api and "user" not in api
    assert api["read_only"] is True
    # The test containers started by hand get the same (tests/docker/stack.py).
    stack = (REPO / "tests" / "docker" / "stack.py").read_text()
    for cap in worker["cap_add"]:
        assert f'"--cap-add", "{cap}"' in stack


def test_every_setting_in_the_env_example_is_a_known_one() -> None:
    from app.settings import Settings

    known = {f"GRADEFORMER_{name.upper()}" for name in Settings.model_fields}
    names = re.findall(r"^(GRADEFORMER_\w+)=", (REPO / "deploy" / "gradeformer.env.example")
                       .read_text(), re.M)
    assert names and set(names) <= known, set(names) - known
