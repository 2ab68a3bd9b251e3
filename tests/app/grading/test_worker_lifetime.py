"""Grading workers die with the server, even when the server is killed outright."""

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

SERVER = """
import multiprocessing, os, sys, time
from concurrent.futures import ProcessPoolExecutor
from app.grading.worker import init_worker

if __name__ == "__main__":
    ctx = multiprocessing.get_context("forkserver")
    with ProcessPoolExecutor(2, mp_context=ctx, initializer=init_worker, initargs=({},)) as pool:
        pids = {pool.submit(os.getpid).result() for _ in range(8)}
        print(" ".join(map(str, sorted(pids))), flush=True)
        time.sleep(60)
"""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().split()[2]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_workers_exit_when_the_server_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "server.py"
    script.write_text(SERVER)
    server = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True,
                              cwd=Path(__file__).resolve().parents[3])
    try:
        assert server.stdout is not None
        pids = [int(p) for p in server.stdout.readline().split()]
        assert pids and all(_alive(p) for p in pids)
        os.kill(server.pid, signal.SIGKILL)
        server.wait(timeout=10)
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and any(_alive(p) for p in pids):
            time.sleep(0.1)
        assert not [p for p in pids if _alive(p)], "grading workers outlived the killed server"
    finally:
        if server.poll() is None:
            server.kill()
