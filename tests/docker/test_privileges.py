"""Least privilege in containers: the worker's privileges (deploy/compose.yaml) keep every
required sandbox layer and the earlier attack set finds no way out; the default ones do not, and
then code items are refused loudly, never run with less isolation."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator

import httpx
import pytest

from tests.docker.stack import IMAGE, REPO, WORKER_PRIVILEGES, Stack, docker, upload
from tests.support.synthetic import ATTENTION_OK

pytestmark = [pytest.mark.docker, pytest.mark.slow]


def doctor(*privileges: str) -> subprocess.CompletedProcess[str]:
    return docker("run", "--rm", "-e", "COLUMNS=200", *privileges, IMAGE, "gradeformer",
                  "doctor", check=False)


def test_the_worker_privileges_keep_every_required_layer() -> None:
    done = doctor(*WORKER_PRIVILEGES)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all required layers are active" in done.stdout
    for layer in ("minimal_root", "network_namespace", "pid_namespace", "uid_drop", "seccomp"):
        line = next(x for x in done.stdout.splitlines() if f" {layer} " in x)
        assert "│ yes " in line, line


def test_a_default_container_is_refused_by_doctor_naming_the_missing_layers() -> None:
    done = doctor()  # the image's non-root user, Docker's default seccomp and capabilities
    assert done.returncode != 0
    message = " ".join((done.stdout + done.stderr).split())
    assert "required sandbox layers inactive: minimal_root, network_namespace, pid_namespace, " \
           "uid_drop" in message, message


def test_docker_default_seccomp_refuses_pivot_root_even_as_root_with_sys_admin() -> None:
    """Why the project ships a profile: the capabilities alone are not enough."""
    at = WORKER_PRIVILEGES.index(next(p for p in WORKER_PRIVILEGES if p.startswith("seccomp=")))
    done = doctor(*WORKER_PRIVILEGES[:at - 1], *WORKER_PRIVILEGES[at + 1:])
    assert done.returncode != 0
    assert "pivot_root: Operation not permitted" in " ".join(done.stdout.split())


@pytest.fixture(scope="module")
def attack_image(tmp_path_factory: pytest.TempPathFactory) -> str:
    """The image plus pytest and the sandbox's tests, to run them where the worker runs."""
    context = tmp_path_factory.mktemp("attacks")
    subprocess.run([sys.executable, "-m", "pip", "download", "-q", "-d", str(context / "wheels"),
                    "pytest", "pytest-timeout"], check=True, capture_output=True)
    shutil.copytree(REPO / "tests" / "graders", context / "tests" / "graders",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("__init__.py", "conftest.py"):
        shutil.copy(REPO / "tests" / name, context / "tests" / name)
    (context / "Dockerfile").write_text(
        f"FROM {IMAGE}\nUSER root\nCOPY wheels /tmp/wheels\n"
        "RUN pip install -q --no-index --find-links /tmp/wheels pytest pytest-timeout "
        "&& rm -rf /tmp/wheels\nCOPY tests ./tests\n")
    tag = IMAGE.replace("gradeformer:", "gradeformer-attacks:")
    docker("build", "-q", "-t", tag, str(context))
    return tag


def test_the_attack_set_inside_the_grading_container_escapes_nothing(attack_image: str) -> None:
    done = docker("run", "--rm", *WORKER_PRIVILEGES, attack_image, "pytest", "-q",
                  "-p", "no:cacheprovider", "tests/graders/sandbox/test_attacks.py",
                  "tests/graders/sandbox/test_isolation.py", check=False, timeout=1800)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
    print(f"attack set inside the grading container: {summary}")
    assert done.returncode == 0, done.stdout[-6000:] + done.stderr[-2000:]
    assert " failed" not in summary and " passed" in summary, summary


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    made = Stack(tmp_path_factory.mktemp("refusal"), "gfrefusal")
    try:
        made.up(workers=0)
        yield made
    finally:
        made.down()


def test_code_items_are_refused_loudly_by_a_worker_without_the_layers(stack: Stack) -> None:
    """A worker in a default container (no seccomp profile, no capability, non-root) grades the
    numeric and written items and marks the code items for a human, saying why."""
    stack.run_worker("gfrefusal-weak-worker")
    token = stack.token("s-weak")
    body = json.dumps({"student_id": "s-weak", "answers": {"B2": "Sum = 11.107",
                                                           "B3": ATTENTION_OK}})
    with httpx.Client(base_url=stack.base) as client:
        accepted = upload(client, token, body.encode(), "application/json")
    assert accepted is not None
    found = stack.wait_final([accepted], timeout=300)
    assert found[accepted] == "needs_review"
    rows = stack.sql(
        "SELECT i.item_id, i.status, i.points, i.feedback FROM item_scores i JOIN grading_runs r "
        f"ON r.id = i.run_id WHERE r.submission_id = {accepted} AND i.grader = 'code'")
    assert rows, "no code item was scored"
    for _item, status, points, feedback in rows:
        assert status == "needs_review", rows
        assert float(points) == 0
        assert "student code was not run: the sandbox lacks required layers" in feedback
        assert "minimal_root" in feedback and "uid_drop" in feedback
