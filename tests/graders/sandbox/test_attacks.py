"""Hostile submissions: each one is contained, and the next job still runs correctly."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import numpy as np
import pytest

from graders.sandbox import Sandbox
from tests.graders.sandbox.conftest import CORRECT, assert_healthy, run

REPO = Path(__file__).resolve().parents[3]


def module_error(outcome, index: int = 0) -> str:
    assert outcome.module is not None, outcome
    assert len(outcome.module.errors) > index, outcome.module
    error = outcome.module.errors[index][1]
    return f"{error.type}: {error.message}"


def call_error(outcome, index: int = 0) -> str:
    call = outcome.calls[index]
    assert call is not None and not call.ok and call.error is not None, call
    return f"{call.error.type}: {call.error.message}"


def test_infinite_loop_is_killed_at_the_timeout(sandbox: Sandbox) -> None:
    outcome = run(sandbox, "def attention(Q, K, V):\n    while True:\n        pass\n")
    assert outcome.status == "timeout"
    assert outcome.calls == (None,)
    # stopped at its limit of its own time; on a loaded machine the wall clock runs longer
    # by the time it waited for a processor (graders/sandbox/waiting.py)
    assert outcome.wall_ms - outcome.waited_ms < 3000, outcome
    assert_healthy(sandbox)


def test_sleep_is_killed_at_the_timeout(sandbox: Sandbox) -> None:
    outcome = run(sandbox, "import time\ntime.sleep(60)\n")
    assert outcome.status == "timeout"
    assert_healthy(sandbox)


def test_results_before_a_timeout_are_kept(sandbox: Sandbox) -> None:
    source = CORRECT + (
        "_calls = []\n"
        "_correct = attention\n"
        "def attention(Q, K, V):\n"
        "    _calls.append(1)\n"
        "    while len(_calls) > 1:\n"
        "        pass\n"
        "    return _correct(Q, K, V)\n")
    outcome = run(sandbox, source, calls=3)
    assert outcome.status == "timeout"
    assert outcome.calls[0] is not None and outcome.calls[0].ok
    assert outcome.calls[1] is None and outcome.calls[2] is None
    assert_healthy(sandbox)


@pytest.mark.parametrize("bomb", [
    "import numpy as np\nx = np.ones((100_000, 100_000))\n",
    "import numpy as np\nkeep = [np.empty(10_000_000) for _ in range(100)]\n",
    "x = [0] * 10**10\n",
    "s = 'x' * 10**10\n",
])
def test_memory_bombs_raise_memory_error(sandbox: Sandbox, bomb: str) -> None:
    outcome = run(sandbox, bomb)
    assert "MemoryError" in module_error(outcome)
    assert_healthy(sandbox)


@pytest.mark.parametrize("bomb", [
    "import numpy as np\nkeep = [np.ones(10_000_000) for _ in range(100)]\n",
    "keep = []\nwhile True:\n    keep.append(bytearray(10**7))\n",
])
def test_memory_bombs_that_touch_their_pages_are_contained(sandbox: Sandbox, bomb: str) -> None:
    # Filling 256 MiB takes a while on a busy machine: the address-space limit or the wall
    # clock stops it, whichever comes first; either way the host and the next job are fine.
    outcome = run(sandbox, bomb)
    assert outcome.status == "timeout" or "MemoryError" in module_error(outcome)
    assert_healthy(sandbox)


def test_fork_bomb_cannot_fork(sandbox: Sandbox) -> None:
    outcome = run(sandbox, "import os\nwhile True:\n    os.fork()\n")
    assert "PermissionError" in module_error(outcome)
    assert_healthy(sandbox)


def test_thread_bomb_cannot_start_threads(sandbox: Sandbox) -> None:
    source = ("import threading, time\n"
              "while True:\n"
              "    threading.Thread(target=time.sleep, args=(60,)).start()\n")
    outcome = run(sandbox, source)
    assert outcome.status == "completed"
    assert "can't start new thread" in module_error(outcome)
    assert_healthy(sandbox)


@pytest.mark.parametrize("target", [("127.0.0.1", 6379), ("127.0.0.1", 5432), ("1.1.1.1", 53)])
def test_no_network(sandbox: Sandbox, target: tuple[str, int]) -> None:
    source = f"import socket\nsocket.create_connection({target!r}, timeout=0.2)\n"
    outcome = run(sandbox, source)
    assert "PermissionError" in module_error(outcome)
    assert_healthy(sandbox)


def test_unix_sockets_are_denied_too(sandbox: Sandbox) -> None:
    outcome = run(sandbox, "import socket\nsocket.socketpair()\n")
    assert "PermissionError" in module_error(outcome)


@pytest.mark.parametrize("path", [
    "/etc/passwd", "/etc/shadow", "/proc/1/environ", "/proc/self/status",
    str(REPO / "graders" / "code" / "grader.py"),
    str(REPO / "rubrics" / "transformer-basics" / "attention.py"),
    str(REPO / "pyproject.toml"),
])
def test_reading_host_and_grader_files_fails(sandbox: Sandbox, path: str) -> None:
    outcome = run(sandbox, f"open({path!r}).read()\n")
    assert "FileNotFoundError" in module_error(outcome)
    assert_healthy(sandbox)


def _runtime_paths() -> list[Path]:
    import sysconfig

    import numpy

    return [Path(numpy.__file__).resolve().parent, Path(sysconfig.get_paths()["stdlib"]).resolve()]


def test_the_root_holds_only_the_runtime(sandbox: Sandbox) -> None:
    outcome = run(sandbox, "import os\nprint(sorted(os.listdir('/')))\n")
    listed = set(json.loads(outcome.output.replace("'", '"')))
    # The interpreter and numpy are bound at their own paths, wherever the checkout lives
    # (CI may clone under /tmp): their top-level ancestors are the only other entries.
    runtime_tops = {p.parts[1] for p in _runtime_paths()}
    assert listed <= {"usr", "lib", "lib64", "bin", "sbin"} | runtime_tops
    assert not listed & ({"etc", "proc", "tmp", "dev", "sys", "home"} - runtime_tops)


def test_runtime_ancestors_show_only_the_path_to_the_runtime(sandbox: Sandbox) -> None:
    for path in _runtime_paths():
        top = Path("/", path.parts[1])
        if str(top) in {"/usr", "/lib", "/lib64"}:
            continue
        outcome = run(sandbox, f"import os\nprint(sorted(os.listdir({str(top)!r})))\n")
        listed = json.loads(outcome.output.replace("'", '"'))
        assert listed == [path.parts[2]], f"{top} shows {listed}"


@pytest.mark.parametrize("path", ["/tmp/gradeformer-escape", "/escape", "/usr/lib/escape"])
def test_writing_outside_fails(sandbox: Sandbox, path: str) -> None:
    outcome = run(sandbox, f"open({path!r}, 'w').write('x')\n")
    assert module_error(outcome).split(":")[0] in {
        "FileNotFoundError", "OSError", "PermissionError"}
    assert not Path(path).exists()
    assert_healthy(sandbox)


def test_writing_next_to_numpy_fails(sandbox: Sandbox) -> None:
    target = Path(np.__file__).parent / "escape.py"
    outcome = run(sandbox, f"open({str(target)!r}, 'w').write('x')\n")
    assert "Read-only file system" in module_error(outcome)
    assert not target.exists()


def test_100_mb_of_stdout_is_stopped(sandbox: Sandbox) -> None:
    started = time.monotonic()
    outcome = run(sandbox, "import sys\nfor _ in range(100):\n    sys.stdout.write('x' * 10**6)\n")
    assert outcome.status == "output_limit"
    assert len(outcome.output) <= sandbox.policy.output_keep
    assert time.monotonic() - started < 3
    assert_healthy(sandbox)


def test_killing_the_parent_and_the_zygote_fails(sandbox: Sandbox) -> None:
    zygotes = sandbox.zygote_pids()
    source = (
        "import os, signal\n"
        "errors = []\n"
        f"for pid in [os.getppid(), 1, 0, -1, {os.getpid()}, *{zygotes!r}]:\n"
        "    try:\n"
        "        os.kill(pid, signal.SIGKILL)\n"
        "    except OSError as exc:\n"
        "        errors.append(type(exc).__name__)\n"
        "print(errors)\n"
        "os.killpg(0, signal.SIGKILL)\n")
    outcome = run(sandbox, source)
    assert "PermissionError" in module_error(outcome)
    assert outcome.output.count("PermissionError") == 5 + len(zygotes)
    assert sandbox.zygote_pids() == zygotes
    assert_healthy(sandbox)


@pytest.mark.parametrize("source", [
    "import os\nrc = os.system('touch /tmp/gradeformer-pwned')\nassert rc == 0, rc\n",
    "import subprocess\nsubprocess.run(['touch', '/tmp/gradeformer-pwned'])\n",
    "import os\nos.execv('/usr/bin/touch', ['touch', '/tmp/gradeformer-pwned'])\n",
    "import os\nos.posix_spawn('/usr/bin/touch', ['touch', '/tmp/gradeformer-pwned'], {})\n",
])
def test_no_new_programs(sandbox: Sandbox, source: str) -> None:
    outcome = run(sandbox, source)
    assert outcome.module is not None and outcome.module.errors, outcome
    assert not Path("/tmp/gradeformer-pwned").exists()
    assert_healthy(sandbox)


SHM = """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
shmid = libc.shmget(0x6A7F01, 4096, 0o1666)  # IPC_CREAT | 0666
print(shmid, ctypes.get_errno())
"""


def _host_segments() -> set[str]:
    path = Path("/proc/sysvipc/shm")
    lines = path.read_text().splitlines()[1:] if path.exists() else []
    return {line.split()[0] for line in lines}


def test_sysv_shared_memory_is_denied_and_never_reaches_the_host(sandbox: Sandbox) -> None:
    before = _host_segments()
    outcome = run(sandbox, SHM)
    assert outcome.output.split() == ["-1", "1"]  # EPERM
    assert _host_segments() == before
    assert_healthy(sandbox)


def test_without_seccomp_the_ipc_namespace_still_isolates_jobs() -> None:
    from graders.sandbox import SandboxPolicy

    box = Sandbox(SandboxPolicy(timeout_s=0.5, disabled=frozenset({"seccomp"}),
                                allow_insecure=True))
    try:
        if "ipc_namespace" in box.missing_required() or not box.layers()[4].active:
            pytest.skip("no IPC namespaces on this machine")
        before = _host_segments()
        first = run(box, SHM)
        assert int(first.output.split()[0]) >= 0  # created inside the job's namespace
        second = run(box, SHM.replace("0o1666", "0o666"))  # look up without creating
        assert second.output.split()[0] == "-1"
        assert _host_segments() == before
    finally:
        box.close()


FORGED_FRAME = (
    "import json, struct, sys\n"
    "header = json.dumps({'kind': 'call', 'index': 0, 'ok': True, 'value': {'t': 'none'}})\n"
)


def test_a_result_printed_on_stdout_is_just_output(sandbox: Sandbox) -> None:
    source = FORGED_FRAME + (
        "sys.stdout.write('{\"kind\": \"done\"}' + header)\n"
        "sys.stdout.buffer.write(struct.pack('>II', len(header), 0) + header.encode())\n"
        "def attention(Q, K, V):\n"
        "    return 'wrong'\n")
    outcome = run(sandbox, source)
    assert outcome.status == "completed"
    call = outcome.calls[0]
    assert call is not None and call.ok and call.value is not None
    assert call.value.kind == "unsupported" and call.value.type_name == "str"


def test_a_forged_frame_on_the_result_pipe_is_detected(sandbox: Sandbox) -> None:
    source = FORGED_FRAME + (
        "import os\n"
        "def attention(Q, K, V):\n"
        "    for fd in range(3, 10):\n"
        "        try:\n"
        "            os.write(fd, struct.pack('>II', len(header), 0) + header.encode())\n"
        "        except OSError:\n"
        "            pass\n"
        "    return 'wrong'\n")
    outcome = run(sandbox, source, calls=2)
    assert outcome.status == "protocol"
    assert outcome.calls[0] is None  # neither the forged nor the real report is believed
    # The forged frame has no seal (the harness's mark for this run): refused at once.
    assert "the harness did not write" in outcome.violations[0]
    assert_healthy(sandbox)


def test_garbage_on_the_result_pipe_is_a_violation_not_a_crash(sandbox: Sandbox) -> None:
    source = ("import os, struct\n"
              "os.write(3, struct.pack('>II', 20, 10**6) + b'{\"kind\": \"call\"')\n"
              "os._exit(0)\n")
    outcome = run(sandbox, source)
    assert outcome.status == "protocol"
    assert_healthy(sandbox)


def test_importing_the_grader_fails(sandbox: Sandbox) -> None:
    source = (f"import sys\nsys.path[:0] = [{str(REPO)!r}, '/work/main', '.']\n"
              "import graders.code.grader\n")
    outcome = run(sandbox, source)
    assert "ModuleNotFoundError" in module_error(outcome)
    outcome = run(sandbox, "import pyseccomp\n")
    assert "ModuleNotFoundError" in module_error(outcome)
    assert_healthy(sandbox)


@pytest.mark.parametrize("view", [
    "np.broadcast_to(np.float64(1.0), (10**6, 10**6))",
    "np.lib.stride_tricks.as_strided(np.zeros(1), shape=(10**7, 10**7), strides=(0, 0))",
])
def test_enormous_broadcast_views_are_not_materialised(sandbox: Sandbox, view: str) -> None:
    source = f"import numpy as np\ndef attention(Q, K, V):\n    return {view}, {view}\n"
    started = time.monotonic()
    outcome = run(sandbox, source)
    assert outcome.status == "completed"
    call = outcome.calls[0]
    assert call is not None and call.ok and call.value is not None
    assert [item.kind for item in call.value.items] == ["too_large", "too_large"]
    assert time.monotonic() - started < 2
    assert_healthy(sandbox)


def test_object_arrays_are_never_carried(sandbox: Sandbox) -> None:
    source = ("import numpy as np\n"
              "class Evil:\n"
              "    def __reduce__(self):\n"
              "        return (print, ('pwned',))\n"
              "def attention(Q, K, V):\n"
              "    return np.array([Evil()], dtype=object), np.array(['text'])\n")
    outcome = run(sandbox, source)
    call = outcome.calls[0]
    assert call is not None and call.value is not None
    assert [item.kind for item in call.value.items] == ["unsupported", "unsupported"]


def test_a_segfault_keeps_earlier_results(sandbox: Sandbox) -> None:
    source = CORRECT + (
        "import ctypes\n"
        "_n = []\n"
        "_correct = attention\n"
        "def attention(Q, K, V):\n"
        "    _n.append(1)\n"
        "    if len(_n) == 2:\n"
        "        ctypes.string_at(0)\n"
        "    return _correct(Q, K, V)\n")
    outcome = run(sandbox, source, calls=3)
    assert outcome.status == "died"
    assert outcome.signal == 11
    assert outcome.calls[0] is not None and outcome.calls[0].ok
    assert outcome.calls[1] is None
    assert_healthy(sandbox)


def test_exit_calls_are_reported(sandbox: Sandbox) -> None:
    outcome = run(sandbox, "import sys\ndef attention(Q, K, V):\n    sys.exit(3)\n")
    assert call_error(outcome).startswith("SystemExit")
    outcome = run(sandbox, "import os\ndef attention(Q, K, V):\n    os._exit(0)\n")
    assert outcome.status == "died" and outcome.calls == (None,)
    assert_healthy(sandbox)


def test_the_job_runs_unprivileged_in_its_own_pid_namespace(sandbox: Sandbox) -> None:
    source = ("import os, resource\n"
              "print(os.getuid(), os.getgid(), os.getpid(), os.getgroups(),"
              " resource.getrlimit(resource.RLIMIT_NPROC))\n")
    outcome = run(sandbox, source)
    uid = str(sandbox.job_uids()[0])
    assert int(uid) >= sandbox.policy.uid_base
    assert outcome.output.startswith(f"{uid} {uid} 1 [] (1, 1)")


def test_a_dead_zygote_is_restarted(sandbox: Sandbox) -> None:
    [pid] = sandbox.zygote_pids()
    os.kill(pid, 9)
    assert_healthy(sandbox)
    assert sandbox.zygote_pids()[0] not in (0, pid)


def test_a_job_finds_nothing_of_the_previous_job(sandbox: Sandbox) -> None:
    marker = f"gradeformer-secret-{os.getpid()}-{time.monotonic_ns()}"
    first = run(sandbox, f"SECRET = {marker!r}\nprint(SECRET)\ndef attention(Q, K, V):\n"
                         "    return SECRET, SECRET\n")
    assert marker in first.output
    hidden = marker[::-1]  # so this job's own source does not contain the marker
    source = (
        "import gc, sys\n"
        f"m = {hidden!r}[::-1]\n"
        "mb = m.encode()\n"
        "hits = 0\n"
        "seen = set()\n"
        "def look(o):\n"
        "    global hits\n"
        "    if isinstance(o, str) and m in o and o is not m:\n"
        "        hits += 1\n"
        "    elif isinstance(o, (bytes, bytearray, memoryview)) and o is not mb \\\n"
        "            and mb in bytes(o):\n"
        "        hits += 1\n"
        "for o in gc.get_objects():\n"
        "    for r in gc.get_referents(o):\n"
        "        if id(r) not in seen:\n"
        "            seen.add(id(r))\n"
        "            look(r)\n"
        "frame = sys._getframe()\n"
        "while frame is not None:\n"
        "    for v in list(frame.f_locals.values()):\n"
        "        look(v)\n"
        "    frame = frame.f_back\n"
        "print('hits', hits)\n")
    second = run(sandbox, source)
    assert second.output.strip() == "hits 0", second
