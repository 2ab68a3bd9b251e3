"""A small run of benchmarks/edge.py: the real server under a regrade flood, a PDF flood and
64 MiB unauthenticated bodies keeps /healthz healthy within 1 s (stretched by the machine's pace:
the suite's other workers share its two cores) and its memory within 50 MB."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.shared_data import REPO
from tests.support.pace import stretched


@pytest.mark.slow
def test_floods_do_not_stall_healthz_or_grow_the_server() -> None:
    result = subprocess.run(
        [sys.executable, str(REPO / "benchmarks" / "edge.py"), "--scale", "0.1",
         "--healthz-limit", f"{stretched(1.0):.3f}", "--no-write"],
        cwd=REPO, capture_output=True, text=True, timeout=280, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr[-3000:]
    assert "**PASS**" in result.stdout
