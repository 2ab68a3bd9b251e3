"""The allow-list and the private root: what a job may ask of the kernel, and which files it
sees. Each attack is followed by a correct job."""

from __future__ import annotations

import json
import os
import platform
import sys
import sysconfig
from pathlib import Path

import numpy as np
import pytest

from graders.sandbox import Sandbox, SandboxPolicy
from graders.sandbox.root import root_plan
from graders.sandbox.seccomp_filter import ALLOWED, ALLOWED_WITH, policy_summary
from tests.graders.sandbox.conftest import assert_healthy, run

x86_64 = pytest.mark.skipif(platform.machine() != "x86_64", reason="x86_64 system call numbers")

# (name, number, arguments): calls a job has no business making, each a persistence, side
# channel or escalation route; the allow-list refuses them with EPERM.
REFUSED = [
    ("sync", 162, ()), ("syncfs", 306, (1,)), ("fsync", 74, (1,)), ("fdatasync", 75, (1,)),
    ("inotify_init1", 294, (0,)), ("fanotify_init", 300, (0, 0)), ("membarrier", 324, (0, 0)),
    ("landlock_create_ruleset", 444, (0, 0, 1)), ("timer_create", 222, (1, 0, 0)),
    ("timerfd_create", 283, (1, 0)), ("setitimer", 38, (0, 0, 0)), ("alarm", 37, (5,)),
    ("mincore", 27, (0, 4096, 0)), ("fadvise64", 221, (0, 0, 0, 4)),
    ("readahead", 187, (0, 0, 4096)), ("flock", 73, (0, 2)), ("sysinfo", 99, (0,)),
    ("userfaultfd", 323, (0,)), ("io_uring_setup", 425, (1, 0)), ("memfd_create", 319, (0, 0)),
    ("pipe2", 293, (0, 0)), ("socket", 41, (1, 1, 0)), ("clone3", 435, (0, 0)),
    ("unshare", 272, (0x20000,)), ("ptrace", 101, (0, 0, 0, 0)), ("chdir", 80, (0,)),
    ("prctl", 157, (15, 0)), ("sched_setaffinity", 203, (0, 0, 0)),
    ("fcntl F_NOTIFY", 72, (0, 1026, 0)), ("fcntl F_SETLK", 72, (0, 6, 0)),
    ("fcntl F_OFD_SETLK", 72, (0, 37, 0)), ("ioctl TIOCSTI", 16, (1, 0x5412, 0)),
    ("madvise WILLNEED", 28, (0, 4096, 3)), ("madvise PAGEOUT", 28, (0, 4096, 21)),
    ("madvise COLD", 28, (0, 4096, 20)), ("prlimit64 set", 302, (0, 0, 1, 0)),
]

SYSCALL_PROBE = """
import ctypes, errno, json
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
found = {}
for name, number, args in json.loads(CALLS):
    ctypes.set_errno(0)
    result = libc.syscall(ctypes.c_long(number), *[ctypes.c_long(a) for a in args])
    found[name] = [result, errno.errorcode.get(ctypes.get_errno(), "")]
print(json.dumps(found))
"""


@x86_64
def test_calls_off_the_allow_list_fail_with_eperm(sandbox: Sandbox) -> None:
    source = f"CALLS = {json.dumps(json.dumps(REFUSED))}\n" + SYSCALL_PROBE
    outcome = run(sandbox, source)
    found = json.loads(outcome.output)
    refused = {name: r for name, r in found.items() if r == [-1, "EPERM"]}
    assert set(refused) == {name for name, _, _ in REFUSED}, found
    assert_healthy(sandbox)


NUMPY_WORK = """
import io, math, random, warnings, decimal, fractions, statistics, itertools, collections
import numpy as np
def attention(Q, K, V):
    rng = np.random.default_rng()
    big = rng.standard_normal((300, 300))
    np.linalg.inv(big); np.linalg.svd(big[:40, :40]); np.linalg.eigh(big[:9, :9] @ big[:9, :9].T)
    np.linalg.solve(big, big[:, 0]); np.fft.rfft(big[0]); np.einsum("ij,kj->ik", Q, K)
    (big @ big.T).trace(); np.random.seed(3); np.random.rand(2); random.random()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        np.exp(np.array([1e4]))
    try:
        np.empty((10**7, 10**5))
    except MemoryError:
        pass
    buffer = io.BytesIO(); np.save(buffer, big); np.loadtxt(io.StringIO("1 2\\n3 4"))
    print(np.round(big[:2, :2], 2), repr(Q[:1]), decimal.Decimal(1) / 3, math.pi)
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    w = np.exp(s - s.max(axis=-1, keepdims=True))
    w = w / w.sum(axis=-1, keepdims=True)
    return w @ V, w
"""


def test_numpy_attention_code_runs_under_the_allow_list(sandbox: Sandbox) -> None:
    outcome = run(sandbox, NUMPY_WORK, calls=2, timeout_s=5.0)
    assert outcome.status == "completed", outcome
    assert all(call is not None and call.ok for call in outcome.calls), outcome.calls
    assert "3.14159" in outcome.output
    assert_healthy(sandbox)


def test_the_filter_is_an_allow_list_and_says_so() -> None:
    assert "allow-list" in policy_summary()
    assert str(len(ALLOWED) + len(ALLOWED_WITH)) in policy_summary()
    denied = {"sync", "inotify_init", "inotify_init1", "membarrier", "landlock_create_ruleset",
              "timer_create", "mincore", "flock", "socket", "clone", "clone3", "execve",
              "fork", "kill", "ptrace", "fadvise64", "sysinfo", "setitimer"}
    allowed = set(ALLOWED) | {name for name, _, _ in ALLOWED_WITH}
    assert not denied & allowed


def _host_ids() -> dict[str, list[int]]:
    paths = [str(Path(np.__file__).resolve()), os.path.realpath(os.sys.executable),
             str(Path(sysconfig.get_paths()["stdlib"]).resolve() / "os.py")]
    libc = next((p for p in root_plan().files if os.path.basename(p).startswith("libc.so")),
                None)
    if libc:
        paths.append(libc)
    return {p: [os.stat(p).st_dev, os.stat(p).st_ino] for p in paths}


def test_the_runtime_inside_is_a_private_copy(sandbox: Sandbox) -> None:
    host = _host_ids()
    source = ("import json, os\n"
              f"HOST = json.loads({json.dumps(json.dumps(host))})\n"
              "same = [p for p, ids in HOST.items()\n"
              "        if [os.stat(p).st_dev, os.stat(p).st_ino] == ids]\n"
              "print(json.dumps([len(HOST), same]))\n")
    count, same = json.loads(run(sandbox, source).output)
    assert count == len(host) and same == []
    assert_healthy(sandbox)


def _mapped_host_files(pid: int) -> list[str]:
    shared = []
    with open(f"/proc/{pid}/maps") as maps:
        for line in maps:
            fields = line.split()
            if len(fields) < 6 or not fields[5].startswith("/"):
                continue
            try:
                info = os.stat(fields[5])
            except OSError:
                continue
            device = f"{os.major(info.st_dev):02x}:{os.minor(info.st_dev):02x}"
            if info.st_ino == int(fields[4]) and device == fields[3]:
                shared.append(fields[5])
    return shared


def test_no_host_file_is_mapped_in_the_zygote(sandbox: Sandbox) -> None:
    [pid] = sandbox.zygote_pids()
    assert _mapped_host_files(pid) == []


def test_two_zygotes_share_no_file() -> None:
    # Concurrent jobs run in different zygotes: distinct tmpfs instances, so no file, lock or
    # page-cache page is common to them (no covert channel through the runtime's files).
    box = Sandbox(SandboxPolicy(timeout_s=0.5), size=2)
    try:
        if box.missing_required():
            pytest.skip("the sandbox layers are not available here")
        witness = str(Path(np.__file__).resolve())
        devices = {os.stat(f"/proc/{pid}/root{witness}").st_dev for pid in box.zygote_pids()}
        assert len(devices) == 2 and os.stat(witness).st_dev not in devices
        for pid in box.zygote_pids():
            assert _mapped_host_files(pid) == []
    finally:
        box.close()


def test_the_root_is_read_only_and_holds_only_the_plan(sandbox: Sandbox) -> None:
    plan = root_plan()
    assert plan.executable in plan.files
    assert not any("/site-packages/" in f and "/numpy" not in f for f in plan.files)
    # Only the interpreter's installation, the environment's numpy and the system's shared
    # libraries: nothing else of the host (no /etc, /proc, no other file of the folder the
    # checkout or the virtualenv lives in, wherever that is: /tmp and /home clones included).
    sources = (f"{sys.base_prefix}/", f"{sys.prefix}/", "/lib/", "/lib64/", "/usr/lib/",
               "/usr/lib64/")
    assert [f for f in plan.files if not f.startswith(sources)] == []
    assert not any(f.startswith(("/etc", "/proc")) for f in plan.files)
    assert not any(f.startswith(f"{sys.prefix}/") and "/site-packages/" not in f
                   and not f.startswith(f"{sys.prefix}/bin/") for f in plan.files)
    source = ("import os, sys\n"
              "try:\n"
              "    open(sys.executable, 'ab')\n"
              "except OSError as e:\n"
              "    print(type(e).__name__, e.errno)\n")
    assert run(sandbox, source).output.split()[0] in {"OSError", "PermissionError"}
    assert_healthy(sandbox)


def test_closing_one_sandbox_leaves_another_running(sandbox: Sandbox) -> None:
    # Each zygote has cgroups of its own: closing a sandbox kills what is in its groups only.
    before = sandbox.zygote_pids()
    other = Sandbox(SandboxPolicy(timeout_s=0.5))
    try:
        other.missing_required()
    finally:
        other.close()
    assert sandbox.zygote_pids() == before
    assert all(z.alive() for z in sandbox._zygotes)
    assert_healthy(sandbox)


def test_the_plan_finds_the_libraries_the_loader_would() -> None:
    import shutil

    from graders.sandbox import root

    if shutil.which("ldd") is None:
        pytest.skip("ldd is not installed")
    plan = root_plan()
    objects = [plan.executable, *sorted(f for f in plan.files
                                        if ".so" in os.path.basename(f)
                                        and f.startswith(str(Path(np.__file__).parent)))]
    ours = {os.path.realpath(p) for p in root._shared_libraries(objects)}
    loader = {os.path.realpath(p) for p in root._ldd(objects)} - {os.path.realpath(o)
                                                                  for o in objects}
    assert loader <= ours
    assert {os.path.realpath(p) for p in loader} <= {os.path.realpath(f) for f in plan.files}
