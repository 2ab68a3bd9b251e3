"""`gradeformer serve` (and so `make run`) on a port another server holds says so in one line
and suggests `PORT=`, before starting anything (it used to start up, then print uvicorn's raw
`[Errno 98]`)."""

from __future__ import annotations

import socket
import subprocess
import sys
from pathlib import Path

from app.cli.ops import port_in_use

GRADEFORMER = Path(sys.executable).with_name("gradeformer")


def test_a_busy_port_is_said_in_one_line_with_the_way_out() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        port = holder.getsockname()[1]
        assert port_in_use("127.0.0.1", port)
        done = subprocess.run([str(GRADEFORMER), "serve", "--port", str(port)],
                              capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert f"port {port} on 127.0.0.1 is already in use" in lines[0]
    assert f"make run PORT={port + 1}" in lines[0]
    assert "Errno" not in done.stderr and "startup complete" not in done.stderr


def test_a_free_port_is_free() -> None:
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        port = holder.getsockname()[1]
    assert not port_in_use("127.0.0.1", port)
