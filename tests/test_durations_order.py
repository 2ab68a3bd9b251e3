"""The suite's files are handed out longest first (tests/support/durations.py): whole files,
heaviest first, each file's tests in their own order, and a file the record does not know
weighed by its test count."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from tests.support.durations import MEAN_TEST_S, RECORD, from_junit, load, longest_first


@dataclass(frozen=True)
class Item:
    nodeid: str


def _ids(*files: tuple[str, int]) -> list[Item]:
    return [Item(f"{name}::test_{n}") for name, count in files for n in range(count)]


def test_whole_files_heaviest_first_each_in_its_own_order() -> None:
    items = _ids(("a.py", 3), ("b.py", 2), ("c.py", 1), ("d.py", 2))
    weights = {"a.py": 1.0, "b.py": 30.0, "c.py": 5.0}  # d.py unknown: 2 tests
    ordered = [items[i].nodeid for i in longest_first(items, weights)]
    assert ordered == ["b.py::test_0", "b.py::test_1", "c.py::test_0", "a.py::test_0",
                       "a.py::test_1", "a.py::test_2", "d.py::test_0", "d.py::test_1"]
    assert 2 * MEAN_TEST_S < 1.0  # d.py's estimate: below a.py's measured second


def test_equal_weights_keep_the_collection_order() -> None:
    items = _ids(("z.py", 1), ("y.py", 1), ("x.py", 1))
    assert longest_first(items, {}) == [0, 1, 2]


def test_the_record_is_read_from_a_junit_report(tmp_path: Path) -> None:
    report = tmp_path / "report.xml"
    report.write_text(
        '<testsuites><testsuite>'
        '<testcase classname="tests.test_durations_order" name="a" time="1.25"/>'
        '<testcase classname="tests.test_durations_order" name="b" time="0.5"/>'
        '<testcase classname="tests.gone.test_nothing" name="c" time="9"/>'
        '<testcase classname="elsewhere" name="d" time="9"/>'
        '</testsuite></testsuites>')
    assert from_junit(report, RECORD.parent.parent) == {"tests/test_durations_order.py": 1.8}


def test_a_missing_or_broken_record_weighs_nothing(tmp_path: Path) -> None:
    assert load(tmp_path / "none.json") == {}
    (tmp_path / "bad.json").write_text("[1, 2")
    assert load(tmp_path / "bad.json") == {}
    assert load(RECORD)  # the committed record is read
