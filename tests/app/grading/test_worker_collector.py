"""A grading process freezes what it inherited from the fork server (app.grading.worker
`init_worker`): the server's preloads live as long as the process, so its collector never
walks them (its first pass had been a full one over all of them), and what the process
allocates itself is still collected."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

POOL = """
import gc, multiprocessing, weakref
from concurrent.futures import ProcessPoolExecutor
from app.grading.worker import init_worker

class Node:
    def __init__(self):
        self.me = self

def garbage_freed():
    node = Node()  # a cycle: only the collector frees it
    gone = weakref.ref(node)
    del node
    gc.collect()
    return gone() is None

if __name__ == "__main__":
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["numpy", "app.grading.worker"])
    with ProcessPoolExecutor(1, mp_context=ctx, initializer=init_worker, initargs=({},)) as pool:
        frozen = pool.submit(gc.get_freeze_count).result()
        enabled = pool.submit(gc.isenabled).result()
        freed = pool.submit(garbage_freed).result()
    print(frozen > 10000, enabled, freed)
"""


def test_a_grading_process_freezes_what_it_inherited_and_collects_its_own(
    tmp_path: Path,
) -> None:
    script = tmp_path / "pool.py"
    script.write_text(POOL)
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          cwd=Path(__file__).resolve().parents[3], timeout=120, check=True)
    assert done.stdout.split() == ["True", "True", "True"], done.stderr[-2000:]
