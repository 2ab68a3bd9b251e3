"""Class: a hand-in folder or file that the staff's command reads on a student's terms. A
student's file far past the upload limit (or a device that never ends) was read whole before
its size was checked, and one such file in `gradeformer import` ended the command with nothing
stored for anyone; a symbolic link in the folder (git clones a student's repository's links as
links) was followed and whatever it named (here a stand-in for /etc/passwd) was stored and
graded as that student's submission."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import select
from typer.testing import CliRunner

from app.cli.main import app
from app.cli.offline import UnreadableFile, read_within
from app.db.models import Submission
from app.db.session import make_engine, make_sessionmaker, unit_of_work
from app.settings import get_settings
from graders.rubric import BUNDLED_RUBRICS

SLUG = "transformer-basics"
LIMIT = 16_384
SECRET = "root:x:0:0:the grader's own file"
runner = CliRunner()


@pytest.fixture
def env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    db = tmp_path / "var" / "g.db"
    monkeypatch.setenv("GRADEFORMER_DATABASE_URL", f"sqlite:///{db}")
    monkeypatch.setenv("GRADEFORMER_WORKERS", "1")
    monkeypatch.setenv("GRADEFORMER_MAX_UPLOAD_BYTES", str(LIMIT))
    get_settings.cache_clear()
    yield db
    get_settings.cache_clear()


def _run(*args: str, code: int = 0) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == code, (result.output, result.exception)
    return result.output


def _stored(db: Path) -> dict[str | None, bytes]:
    engine = make_engine(f"sqlite:///{db}")
    try:
        with unit_of_work(make_sessionmaker(engine)) as session:
            return {s.student: bytes(s.raw) for s in session.scalars(select(Submission))}
    finally:
        engine.dispose()


@pytest.mark.parametrize("hostile", ["oversized", "link"])
def test_one_hostile_hand_in_is_rejected_and_the_others_are_stored(
    env: Path, tmp_path: Path, hostile: str
) -> None:
    _run("db", "upgrade")
    _run("rubric", "load", str(BUNDLED_RUBRICS / f"{SLUG}.yaml"))
    folder = tmp_path / "inbox"
    folder.mkdir()
    for name in ("ann", "ben", "cat"):
        (folder / f"{name}.json").write_text(json.dumps({"answers": {"b1.d_head": "64"}}))
    if hostile == "oversized":
        (folder / "mallory.txt").write_bytes(b"B1: d_head = 64\n" * (LIMIT // 4))
    else:
        outside = tmp_path / "passwd"
        outside.write_text(SECRET)
        (folder / "mallory.txt").symlink_to(outside)
    out = _run("import", str(folder), "--assignment", SLUG)
    assert "imported 3 of 4 files" in out, out
    assert "rejected" in out
    stored = _stored(env)
    assert sorted(k or "" for k in stored) == ["ann", "ben", "cat"]
    assert not any(SECRET.encode() in content for content in stored.values())


def test_a_file_that_never_ends_is_refused_in_one_line(env: Path) -> None:
    out = _run("grade", "/dev/zero", "--assignment", SLUG, code=2)
    assert f"larger than the upload limit of {LIMIT} bytes" in out
    assert len(out.strip().splitlines()) == 1


def test_a_huge_hand_in_costs_no_more_memory_than_the_limit(tmp_path: Path) -> None:
    """The command's peak memory with a sparse 1 GiB file (no disk used) stays far below the
    file's size: only the limit and one byte are read."""
    huge = tmp_path / "huge.txt"
    with huge.open("wb") as handle:
        handle.truncate(1 << 30)
    probe = (
        "import resource, subprocess, sys\n"
        "done = subprocess.run([sys.executable, '-m', 'app.cli.main', 'grade', sys.argv[1],"
        " '--assignment', 'transformer-basics'], capture_output=True, text=True)\n"
        "print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "print(done.stdout + done.stderr)\n"
    )
    environment = {**os.environ, "GRADEFORMER_MAX_UPLOAD_BYTES": str(LIMIT)}
    done = subprocess.run([sys.executable, "-c", probe, str(huge)], capture_output=True,
                          text=True, env=environment, timeout=300, check=True)
    first, rest = done.stdout.split("\n", 1)
    code, peak_kib = (int(n) for n in first.split())
    assert code == 2 and "larger than the upload limit" in rest, done.stdout
    assert peak_kib < 512 * 1024, f"peak {peak_kib} KiB reading a 1 GiB file"


@settings(max_examples=60, deadline=None)
@given(size=st.integers(0, 4096), limit=st.integers(1, 4096), fill=st.binary(min_size=1,
                                                                        max_size=16))
def test_a_file_is_read_whole_within_the_limit_and_refused_past_it(
    tmp_path_factory: pytest.TempPathFactory, size: int, limit: int, fill: bytes
) -> None:
    """Every size on either side of every limit, the limit itself included."""
    content = (fill * (size // len(fill) + 1))[:size]
    path = tmp_path_factory.mktemp("read") / "hand-in.txt"
    path.write_bytes(content)
    if size <= limit:
        assert read_within(path, limit) == content
    else:
        with pytest.raises(UnreadableFile) as refused:
            read_within(path, limit)
        assert refused.value.code == 2 and f"limit of {limit} bytes" in str(refused.value)
