"""The trusted side of the sandbox never trusts a child: its strings arrive clean, its exit code
speaks only for itself, and it finds nothing of the zygote or of earlier jobs."""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

import pytest

import graders.sandbox.zygote as zygote_module
from graders.sandbox import JobOutcome, Sandbox, SandboxPolicy, SandboxUnavailable
from graders.sandbox.protocol import encode_frame, parse_results
from tests.graders.sandbox.conftest import CORRECT, assert_healthy, run

HOSTILE = "\\ud800 \\udfff \\x00 \\x1b[2J\\x1b[31m \\x1b]0;owned\\x07 \\u202e \\r\\x08\\x7f \\x9b"


def strings_of(outcome: JobOutcome) -> Iterator[str]:
    yield outcome.output
    yield from outcome.violations
    errors = [error for _, error in outcome.module.errors] if outcome.module else []
    for call in outcome.calls:
        if call is not None and call.error is not None:
            errors.append(call.error)
        if call is not None and call.value is not None:
            yield call.value.type_name
            yield call.value.describe()
            for item in call.value.items:
                yield item.type_name
        if call is not None:
            yield from call.salvage
    for error in errors:
        yield error.type
        yield error.message
        yield from error.functions


def assert_clean(text: str) -> None:
    text.encode("utf-8")  # strict: a lone surrogate raises here
    for char in text:
        assert char in "\n\t" or unicodedata.category(char) not in ("Cc", "Cs"), repr(text)
        assert char != "\u202e", repr(text)


HOSTILE_SOURCE = f"""
import sys
BAD = "{HOSTILE}"
print("out", BAD)
sys.stderr.write("err " + BAD + "\\n")
sys.stdout.buffer.write(b"raw \\xff\\xfe\\x00\\x1b[2J bytes\\n")
class Weird(Exception):
    pass
Weird.__name__ = "Weird" + BAD
class Thing:
    pass
Thing.__name__ = "Thing" + BAD
def attention(Q, K, V):
    raise Weird(BAD * 50)
def shaped(Q, K, V):
    return Thing()
def named(Q, K, V):
    raise ValueError(BAD)
named.__code__ = named.__code__.replace(co_name="named" + BAD)
raise Weird(BAD)
"""


def test_every_string_a_child_produces_arrives_clean(sandbox: Sandbox) -> None:
    from graders.sandbox import Call, Job
    from tests.graders.sandbox.conftest import INPUTS

    job = Job(HOSTILE_SOURCE, INPUTS, tuple(Call(name, (0, 1, 2))
                                            for name in ("attention", "shaped", "named")))
    outcome = sandbox.run(job)
    assert outcome.status == "completed", outcome
    texts = list(strings_of(outcome))
    assert any("owned" not in t and "out" in t for t in texts)
    for text in texts:
        assert_clean(text)
    message = outcome.calls[0].error.message  # type: ignore[union-attr]
    assert len(message) <= 500
    assert_healthy(sandbox)


def test_a_forged_frame_with_hostile_text_is_a_clean_violation(sandbox: Sandbox) -> None:
    source = ("import json, os, struct\n"
              f"h = json.dumps({{'kind': '{HOSTILE}' * 100}}).encode()\n"
              "os.write(3, struct.pack('>II', len(h), 0) + h)\n")
    outcome = run(sandbox, source)
    assert outcome.status == "protocol" and outcome.violations
    for text in strings_of(outcome):
        assert_clean(text)
    assert_clean(outcome.stop_reason(1.0))
    assert_healthy(sandbox)


def test_the_parser_cleans_every_text_field() -> None:
    bad = "\ud800\x00\x1b[2Jx\u202e" * 200
    error = {"type": bad, "message": bad, "frames": [[1, bad]]}
    stream = (encode_frame({"kind": "module", "syntax_error": None,
                            "errors": [{"line": 1, **error}]})
              + encode_frame({"kind": "call", "index": 0, "ok": False, "error": error,
                              "salvage": []})
              + encode_frame({"kind": "call", "index": 1, "ok": True,
                              "value": {"t": "unsupported", "type": bad, "dtype": bad}})
              + encode_frame({"kind": "done"}))
    parsed = parse_results(stream, 2)
    assert not parsed.violations and parsed.module is not None
    texts = [parsed.module.errors[0][1].message, parsed.module.errors[0][1].type,
             *parsed.module.errors[0][1].functions]
    call = parsed.calls[0]
    assert call.error is not None
    texts += [call.error.message, call.error.type, *call.error.functions]
    value = parsed.calls[1].value
    assert value is not None
    texts += [value.type_name, value.dtype]
    for text in texts:
        assert_clean(text)
        assert text and len(text) <= 500


@pytest.mark.parametrize("code", [121, 1, 255])
def test_a_students_exit_code_never_speaks_for_the_sandbox(sandbox: Sandbox, code: int) -> None:
    # 121 was the zygote's own "set-up failed" code: a student choosing it made the grader
    # report the sandbox unavailable. Set-up health now travels on a pipe closed before
    # student code runs.
    for source in (f"import os\nos._exit({code})\n",
                   f"import os\ndef attention(Q, K, V):\n    os._exit({code})\n"):
        outcome = run(sandbox, source)
        assert outcome.status == "died", outcome
        assert outcome.exit_code == code
        # Staff read the status; the student's words never carry it (a program can choose
        # its exit status from its inputs).
        assert f"exit status {code}" in outcome.stop_detail()
        assert str(code) not in outcome.stop_reason(1.0)
    assert_healthy(sandbox)


def test_a_child_that_never_reports_ready_is_a_sandbox_failure(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # A child whose set-up does not complete says nothing on the ready pipe; the zygote reports
    # that, whatever the process then does with its exit code.
    silent = zygote_module.ZYGOTE_SOURCE.replace("os.write(READY_FD, READY)", "pass")
    assert silent != zygote_module.ZYGOTE_SOURCE
    monkeypatch.setattr(zygote_module, "ZYGOTE_SOURCE", silent)
    box = Sandbox(SandboxPolicy(timeout_s=0.5, allow_insecure=True))
    try:
        with pytest.raises(SandboxUnavailable, match="could not be set up"):
            run(box, CORRECT)
    finally:
        box.close()


def test_a_set_up_slower_than_the_jobs_limit_is_not_a_sandbox_failure(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # On a busy machine a child can wait for a processor longer than a short limit before its
    # layers are in place: the zygote waited for its word only until the job's own deadline,
    # then reported set-up failed (a grader_error for every program of the job). Set-up runs no
    # student code; the student's time starts when it is done. Here set-up takes 0.4 s of a
    # 0.1 s limit.
    slow = zygote_module.ZYGOTE_SOURCE.replace(
        "os.write(READY_FD, READY)", "time.sleep(0.4); os.write(READY_FD, READY)")
    assert slow != zygote_module.ZYGOTE_SOURCE
    monkeypatch.setattr(zygote_module, "ZYGOTE_SOURCE", slow)
    box = Sandbox(SandboxPolicy(timeout_s=0.5, allow_insecure=True))
    try:
        assert_healthy(box)  # in the policy's 0.5 s
        outcome = run(box, CORRECT, timeout_s=0.1)
        assert outcome.status == "completed", outcome
        assert outcome.wall_ms >= 400, outcome
        outcome = run(box, "def attention(Q, K, V):\n    while True:\n        pass\n",
                      timeout_s=0.1)
        assert outcome.status == "timeout", outcome  # its own limit, after its set-up
    finally:
        box.close()


def test_the_parent_waits_for_the_zygotes_word_on_set_up() -> None:
    from graders.sandbox import zygote_serve

    assert zygote_module.SETUP_WAIT_S == zygote_serve.READY_WAIT_S


ZYGOTE_STATE_PROBE = """
import gc, sys
gc.unfreeze()
found = []
CONFIG_KEYS = {"seccomp_bpf", "cgroups", "uid", "root_dir", "limits", "early_layers"}
REPLY_KEYS = {"wall_ms", "output_total", "result_len", "phases_ms", "exit_code"}
for o in gc.get_objects():
    name = type(o).__name__
    if name in ("Zygote", "ChildStart", "_SockFprog") or name.startswith("c_long_Array"):
        found.append(name)
    if isinstance(o, dict):
        keys = {k for k in o if isinstance(k, str)}
        if keys & CONFIG_KEYS or len(keys & REPLY_KEYS) >= 2:
            found.append("dict " + ",".join(sorted(keys))[:80])
        if "caps" in keys and "id" in keys:
            found.append("job number in the job")
frame = sys._getframe()
while frame is not None:
    names = set(frame.f_locals)
    if names & {"self", "zygote", "reply", "config", "header", "control"}:
        found.append("frame " + frame.f_code.co_name)
    frame = frame.f_back
print(sorted(set(found)))
"""


def test_a_child_finds_nothing_of_the_zygote_or_earlier_jobs(sandbox: Sandbox) -> None:
    run(sandbox, CORRECT + "print('x' * 5000)\n", calls=2)
    outcome = run(sandbox, ZYGOTE_STATE_PROBE)
    assert outcome.module is not None and not outcome.module.errors, outcome.module
    assert outcome.output.strip() == "[]", outcome.output
    assert_healthy(sandbox)


HEAP_DIGEST = """
import gc, collections
gc.unfreeze()
counts = collections.Counter(type(o).__name__ for o in gc.get_objects())
print(sorted(counts.items()))
"""


def test_every_child_starts_from_the_same_zygote_state(sandbox: Sandbox) -> None:
    run(sandbox, CORRECT, calls=2)
    first = run(sandbox, HEAP_DIGEST).output
    run(sandbox, CORRECT + "print('y' * 3000)\n", calls=3)
    run(sandbox, "raise ValueError('boom')\n")
    second = run(sandbox, HEAP_DIGEST).output
    assert first and first == second
