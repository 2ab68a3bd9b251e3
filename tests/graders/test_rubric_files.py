"""A rubric's battery files kept as loaded (graders.rubric_files): what is taken (exactly what the
battery environment's cache key covers), the bound on a folder, the stored value, the read-only
copy a grading process reads, and the hashes that name them."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.code.config import item_config
from graders.code.environment import battery_environment
from graders.rubric import load_rubric, parse_rubric, stored_rubric
from graders.rubric_files import (
    MAX_FOLDER_BYTES,
    RubricFiles,
    materialise,
    sweep,
    take_files,
)
from graders.rubric_model import LoadedRubric, RubricError, RubricItem
from tests.shared_data import REPO

EXAMPLE = REPO / "docs" / "examples" / "positional-encoding"
RUBRIC = "numpy-positional-encoding.yaml"

_part = st.text(st.characters(categories=("L", "N"), include_characters="_-"), min_size=1,
                max_size=8)
_name = st.lists(_part, min_size=1, max_size=3).map("/".join).filter(
    lambda n: all(p not in (".", "..") for p in n.split("/")))
_files = st.dictionaries(_name, st.binary(max_size=64), min_size=1, max_size=6).map(
    lambda d: RubricFiles(tuple(sorted(d.items()))))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "own")
    return tmp_path / "own"


def _code_items(loaded: LoadedRubric) -> list[RubricItem]:
    return [item for item in loaded.rubric.items() if item.grader == "code"]


@settings(max_examples=60, deadline=None)
@given(_files)
def test_the_stored_value_gives_back_the_same_files(files: RubricFiles) -> None:
    again = RubricFiles.decode(files.encode())
    assert again == files and again.digest == files.digest


@settings(max_examples=60, deadline=None)
@given(_files, st.integers(min_value=0, max_value=5), st.binary(min_size=1, max_size=4))
def test_a_changed_byte_changes_the_digest(files: RubricFiles, at: int, extra: bytes) -> None:
    name, content = files.files[at % len(files.files)]
    changed = RubricFiles(tuple(sorted({**dict(files.files), name: content + extra}.items())))
    assert changed.digest != files.digest


@pytest.mark.parametrize("stored", [
    b"", b"not a header", b'{"format": "other", "files": []}\n',
    RubricFiles((("pe.yaml", b"abc"),)).encode()[:-1],  # truncated
    RubricFiles((("pe.yaml", b"abc"),)).encode() + b"x",  # padded
    b'{"format": "gradeformer-rubric-files/1", "files": [["../pe.yaml", 0]]}\n',
    b'{"format": "gradeformer-rubric-files/1", "files": [["/etc/pe.yaml", 0]]}\n',
    b'{"format": "gradeformer-rubric-files/1", "files": [["a//pe.yaml", 0]]}\n',
])
def test_a_stored_value_that_is_not_one_is_refused(stored: bytes) -> None:
    with pytest.raises(RubricError, match="stored battery files cannot be read"):
        stored_rubric((EXAMPLE / RUBRIC).read_text(), "x.yaml", stored)


def test_the_files_taken_are_the_batteries_and_the_python_beside_them(folder: Path) -> None:
    (folder / "notes.txt").write_text("not read by a battery")
    (folder / "other.yaml").write_text("function: f\n")  # another battery's YAML
    (folder / "helpers.py").write_text("X = 1\n")  # the module may import or read it
    files = take_files(load_rubric(folder / RUBRIC))
    assert files is not None
    assert [name for name, _ in files.files] == ["helpers.py", "pe.yaml", "pos_encoding.py"]
    assert dict(files.files)["pe.yaml"] == (folder / "pe.yaml").read_bytes()


def test_a_battery_named_by_its_absolute_path_is_one_line(folder: Path) -> None:
    rubric = folder / RUBRIC
    rubric.write_text(rubric.read_text().replace("battery: pe.yaml", f"battery: {folder}/pe.yaml"))
    with pytest.raises(RubricError) as raised:
        take_files(load_rubric(rubric))
    assert raised.value.problems == [f"battery file '{folder}/pe.yaml': write its path relative "
                                     "to the rubric's folder"]


def test_a_rubric_without_batteries_takes_none() -> None:
    text = "slug: s\ntitle: t\nquestions:\n  - id: Q\n    items:\n      - {id: q.a, points: 1, " \
           "grader: numeric, config: {expected: 2}}\n"
    loaded = parse_rubric(text, "s.yaml")
    assert take_files(loaded) is None
    assert loaded.content_hash == hashlib.sha256(text.encode()).hexdigest()


def test_a_battery_folder_over_the_bound_is_one_line(folder: Path) -> None:
    (folder / "tables.py").write_bytes(b"#" * MAX_FOLDER_BYTES)
    with pytest.raises(RubricError) as raised:
        take_files(load_rubric(folder / RUBRIC))
    [problem] = raised.value.problems
    assert "battery folder" in problem and f"{MAX_FOLDER_BYTES:,}" in problem


def test_the_copy_is_read_only_and_named_by_its_content(tmp_path: Path) -> None:
    files = RubricFiles((("a/b.py", b"x = 1\n"), ("c.yaml", b"k: v\n")))
    where = materialise(files, tmp_path)
    assert where == materialise(files, tmp_path) == tmp_path / files.digest
    assert (where / "a" / "b.py").read_bytes() == b"x = 1\n"
    for path in (where / "a" / "b.py", where / "c.yaml", where / "a", where):
        assert not path.stat().st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH), path
    other = materialise(RubricFiles((("c.yaml", b"k: w\n"),)), tmp_path)
    assert other != where and sorted(os.listdir(tmp_path)) == sorted([where.name, other.name])


def test_a_stored_rubric_is_graded_from_its_files_whatever_its_folder_holds(
        folder: Path) -> None:
    text = (folder / RUBRIC).read_text()
    files = take_files(load_rubric(folder / RUBRIC))
    assert files is not None
    before = stored_rubric(text, str(folder / RUBRIC), files.encode())
    environment = battery_environment(_code_items(before))
    # The folder's module edited and its battery deleted: the stored rubric does not see it.
    (folder / "pos_encoding.py").write_text("raise SystemExit('edited')\n")
    (folder / "pe.yaml").unlink()
    after = stored_rubric(text, str(folder / RUBRIC), files.encode())
    assert after.content_hash == before.content_hash != hashlib.sha256(text.encode()).hexdigest()
    assert battery_environment(_code_items(after)) == environment
    assert folder not in item_config(_code_items(after)[0]).path.parents


def test_the_cache_key_and_the_version_hash_follow_the_kept_files(folder: Path) -> None:
    """The same batteries kept or read from the folder are the same cache environment (cached
    results stay valid); an edited module kept again is another environment and version."""
    text = (folder / RUBRIC).read_text()
    from_folder = load_rubric(folder / RUBRIC)
    files = take_files(from_folder)
    assert files is not None
    kept = stored_rubric(text, "own.yaml", files.encode())
    assert battery_environment(_code_items(kept)) == \
        battery_environment(_code_items(from_folder))
    with (folder / "pos_encoding.py").open("a") as module:
        module.write("\n# a comment added\n")
    edited = take_files(load_rubric(folder / RUBRIC))
    assert edited is not None and edited.digest != files.digest
    kept_again = stored_rubric(text, "own.yaml", edited.encode())
    assert kept_again.content_hash != kept.content_hash
    assert battery_environment(_code_items(kept_again)) != \
        battery_environment(_code_items(kept))


def _copy_in_a_process(done: multiprocessing.queues.Queue) -> None:  # type: ignore[type-arg]
    done.put(str(materialise(RubricFiles((("b.py", b"x = 1\n"),))).parent))


def test_a_grading_process_leaves_no_copy_behind_when_it_ends() -> None:
    """multiprocessing's processes end by os._exit (no atexit): their copy goes with them."""
    context = multiprocessing.get_context("fork")
    done = context.Queue()
    process = context.Process(target=_copy_in_a_process, args=(done,))
    process.start()
    root = Path(done.get(timeout=60))
    process.join(timeout=60)
    assert process.exitcode == 0 and root.name.startswith(f"{process.pid}-")
    assert not root.exists()


def test_the_copies_of_processes_that_are_gone_are_swept(tmp_path: Path) -> None:
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    roots = [tmp_path / f"{gone.stdout.strip()}-a", tmp_path / f"{os.getpid()}-b"]
    dead, live = (materialise(RubricFiles((("b.py", b"x = 1\n"),)), root)
                  for root in roots if not root.mkdir())
    sweep(tmp_path)
    assert not dead.parent.exists() and live.is_dir()
