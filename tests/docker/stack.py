"""The containerised service, driven from the host: deploy/compose.yaml brought up under a
project name of its own with Docker Compose (the `docker compose` plugin, else Debian's
`docker-compose` 1.29), plus plain `docker` for the faults (kill, restart, network disconnect).

Used by tests/docker (from `make docker-test`) and benchmarks/containers.py. Images are built
beforehand by scripts/docker-test.sh and tagged GRADEFORMER_DOCKER_TAG; nothing is pulled.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import socket
import subprocess
import time
from pathlib import Path
from typing import Any

import httpx

REPO = Path(__file__).resolve().parents[2]
# Debian's docker.io client when installed (another `docker` earlier on PATH may be newer than
# the daemon), as scripts/docker-test.sh chooses it.
DOCKER = (os.environ.get("GRADEFORMER_DOCKER")
          or ("/usr/bin/docker" if os.path.exists("/usr/bin/docker") else None)
          or shutil.which("docker") or "docker")
TAG = os.environ.get("GRADEFORMER_DOCKER_TAG", "test")
IMAGE = f"gradeformer:{TAG}"
UPLOAD = "/api/v1/assignments/transformer-basics/submissions"
FINAL = {"graded", "needs_review", "pending", "grader_error", "error"}
# What the worker service gets in deploy/compose.yaml, for containers started by hand.
WORKER_PRIVILEGES = ("--user", "0", "--cap-drop", "ALL", "--cap-add", "SYS_ADMIN",
                     "--cap-add", "SETUID", "--cap-add", "SETGID", "--cap-add", "KILL",
                     "--security-opt", "no-new-privileges:true", "--security-opt",
                     f"seccomp={REPO / 'deploy' / 'seccomp-worker.json'}",
                     "--read-only", "--tmpfs", "/tmp")


def docker(*args: str, check: bool = True, timeout: float = 600
           ) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([DOCKER, *args], capture_output=True, text=True, timeout=timeout)
    if check and done.returncode != 0:
        raise RuntimeError(f"docker {' '.join(args)}: {done.stderr.strip()[-2000:]}")
    return done


def compose_command() -> list[str]:
    if subprocess.run([DOCKER, "compose", "version"], capture_output=True).returncode == 0:
        return [DOCKER, "compose"]
    found = shutil.which("docker-compose")
    if found is None:
        raise RuntimeError("neither `docker compose` nor docker-compose is installed")
    return [found]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Stack:
    """One compose project in a folder of its own: compose.yaml, the seccomp profile and an env
    file with fresh secrets, as an operator would lay them out."""

    def __init__(self, folder: Path, name: str, settings: dict[str, str] | None = None) -> None:
        self.folder = folder
        self.name = name
        self.port = free_port()
        folder.mkdir(parents=True, exist_ok=True)
        for file in ("compose.yaml", "seccomp-worker.json"):
            shutil.copy(REPO / "deploy" / file, folder / file)
        password = secrets.token_hex(12)
        env = {
            "POSTGRES_USER": "gradeformer", "POSTGRES_PASSWORD": password,
            "POSTGRES_DB": "gradeformer",
            "GRADEFORMER_DATABASE_URL":
                f"postgresql+psycopg://gradeformer:{password}@postgres:5432/gradeformer",
            "GRADEFORMER_EXECUTOR": "celery",
            "GRADEFORMER_CELERY_BROKER_URL": "redis://redis:6379/0",
            "GRADEFORMER_CODE_INPUT_SECRET": secrets.token_hex(32),
            "GRADEFORMER_WORKERS": "1",
            # One student uploads everything: the per-student limits are not under test.
            "GRADEFORMER_UPLOADS_PER_MINUTE": "1000000", "GRADEFORMER_UPLOAD_BURST": "1000000",
            "GRADEFORMER_STUDENT_QUOTA_BYTES": str(1 << 40),
            **(settings or {}),
        }
        (folder / "gradeformer.env").write_text("".join(f"{k}={v}\n" for k, v in env.items()))
        self.env = env
        self.compose_env = {
            **os.environ, "GRADEFORMER_IMAGE": IMAGE, "GRADEFORMER_PORT": str(self.port),
            "GRADEFORMER_POSTGRES_IMAGE": f"gradeformer-postgres:{TAG}",
            "GRADEFORMER_REDIS_IMAGE": f"gradeformer-redis:{TAG}",
            "COMPOSE_PROJECT_NAME": name,
        }
        self.base = f"http://127.0.0.1:{self.port}"
        self.extra: list[str] = []  # containers started by hand, removed by down()

    def compose(self, *args: str, timeout: float = 600) -> str:
        done = subprocess.run([*compose_command(), "-f", str(self.folder / "compose.yaml"),
                               "-p", self.name, *args], capture_output=True, text=True,
                              env=self.compose_env, cwd=self.folder, timeout=timeout)
        if done.returncode != 0:
            raise RuntimeError(f"compose {' '.join(args)}: {done.stderr.strip()[-3000:]}")
        return done.stdout

    def up(self, workers: int) -> None:
        try:
            self.compose("up", "-d", "--no-build", "--scale", f"worker={workers}")
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}\n{self.compose('logs', '--tail', '40')}") from None
        self.wait_healthy()

    def scale(self, workers: int) -> None:
        self.compose("up", "-d", "--no-build", "--no-recreate", "--scale", f"worker={workers}")

    def down(self) -> None:
        if self.extra:  # first: they hold endpoints on the project's network
            docker("rm", "-f", *self.extra, check=False)
        self.compose("down", "-v", "--remove-orphans", "-t", "5")

    def container(self, service: str, index: int = 1) -> str:
        """The container's id (compose names differ between v1 and v2: ask by label)."""
        found = docker("ps", "-aq", "--filter", f"label=com.docker.compose.project={self.name}",
                       "--filter", f"label=com.docker.compose.service={service}",
                       "--filter", f"label=com.docker.compose.container-number={index}").stdout
        ids = found.split()
        if len(ids) != 1:
            raise RuntimeError(f"{service} #{index}: {ids}")
        return ids[0]

    @property
    def network(self) -> str:
        return f"{self.name}_default"

    def wait_healthy(self, timeout: float = 240) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if httpx.get(self.base + "/healthz", timeout=3).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(1)
        logs = self.compose("logs", "--tail", "30", "api", "migrate")
        raise RuntimeError(f"the API never answered /healthz:\n{logs}")

    def exec(self, service: str, *command: str, index: int = 1) -> str:
        return docker("exec", self.container(service, index), *command).stdout

    def token(self, name: str, role: str = "student") -> str:
        out = self.exec("api", "gradeformer", "token", "create", "--role", role, "--name", name)
        return out.strip().splitlines()[-1]

    def sql(self, query: str) -> list[list[str]]:
        out = docker("exec", self.container("postgres"), "psql", "-U", "gradeformer", "-d",
                     "gradeformer", "-At", "-F", "\t", "-c", query).stdout
        return [line.split("\t") for line in out.splitlines() if line]

    def statuses(self) -> dict[int, str]:
        return {int(i): s for i, s in self.sql("SELECT id, status FROM submissions")}

    def runs_per_submission(self) -> dict[int, int]:
        rows = self.sql("SELECT submission_id, count(*) FROM grading_runs GROUP BY submission_id")
        return {int(i): int(n) for i, n in rows}

    def wait_final(self, ids: list[int], timeout: float = 900) -> dict[int, str]:
        deadline = time.monotonic() + timeout
        while True:
            found = self.statuses()
            if all(found.get(i) in FINAL for i in ids):
                return found
            if time.monotonic() > deadline:
                waiting = {i: found.get(i) for i in ids if found.get(i) not in FINAL}
                raise AssertionError(f"not graded after {timeout:.0f} s: {waiting}")
            time.sleep(1)

    def run_worker(self, name: str, *privileges: str) -> str:
        """A worker container started by hand on the stack's network, with the env file."""
        docker("run", "-d", "--name", name, "--network", self.network, "--env-file",
               str(self.folder / "gradeformer.env"), *privileges, IMAGE,
               "gradeformer", "worker")
        self.extra.append(name)
        return name


def upload(client: httpx.Client, token: str, raw: bytes, content_type: str) -> int | None:
    """Post one submission; its id when accepted (202), None when the API did not take it."""
    try:
        answer = client.post(UPLOAD, content=raw, timeout=30, headers={
            "Authorization": f"Bearer {token}", "content-type": content_type})
    except httpx.HTTPError:
        return None
    if answer.status_code != 202:
        return None
    return int(answer.json()["id"])


def logs(container: str, tail: int = 50) -> str:
    done = docker("logs", "--tail", str(tail), container, check=False)
    return done.stdout + done.stderr


def inspect(container: str) -> dict[str, Any]:
    return dict(json.loads(docker("inspect", container).stdout)[0])
