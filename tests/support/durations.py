"""The order test files are handed to the suite's workers: longest first.

`make test` runs the files on every core (pytest-xdist, a file to a worker), each worker taking
the next file when it finishes one. xdist's default order (files with the most tests first)
left the few-test, long files (a browser, a server and its floods) for the end, one worker still
running them while the other had nothing left. Handing them out longest first (the classic
longest-processing-time rule) leaves only short files for the end.

The weights are each file's measured seconds, kept in tests/durations.json; a file not in it
weighs its test count times the suite's mean seconds per test (MEAN_TEST_S). Refresh the record
after a full run (`pytest --junitxml=report.xml ...`):

    python -m tests.support.durations report.xml

A stale record only costs balance: the weights order files, they never select or skip a test.
"""

from __future__ import annotations

import json
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Protocol

RECORD = Path(__file__).resolve().parent.parent / "durations.json"
MEAN_TEST_S = 0.4  # the whole suite's seconds over its tests (1,436 s / 3,414, 2026-11-30)


class _Item(Protocol):
    @property
    def nodeid(self) -> str: ...


def file_of(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def load(record: Path = RECORD) -> dict[str, float]:
    try:
        data = json.loads(record.read_text())
    except (OSError, ValueError):
        return {}
    return {str(k): float(v) for k, v in data.items()} if isinstance(data, dict) else {}


def longest_first(items: Sequence[_Item], weights: Mapping[str, float]) -> list[int]:
    """The items' indexes with whole files in order of weight, heaviest first; a file's tests
    keep their order, and files of equal weight keep theirs."""
    counts = Counter(file_of(item.nodeid) for item in items)
    first: dict[str, int] = {}
    for index, item in enumerate(items):
        first.setdefault(file_of(item.nodeid), index)

    def weight(name: str) -> float:
        return weights.get(name, counts[name] * MEAN_TEST_S)

    return sorted(range(len(items)), key=lambda i: (
        -weight(file_of(items[i].nodeid)), first[file_of(items[i].nodeid)], i))


def from_junit(report: Path, root: Path) -> dict[str, float]:
    """Seconds per test file from a JUnit report (pytest's `classname` names the module)."""
    seconds: Counter[str] = Counter()
    for case in ET.parse(report).getroot().iter("testcase"):
        module = case.get("classname", "")
        if not module.startswith("tests."):
            continue
        path = module.replace(".", "/") + ".py"
        if (root / path).exists():
            seconds[path] += float(case.get("time") or 0)
    return {path: round(s, 1) for path, s in sorted(seconds.items())}


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        raise SystemExit("usage: python -m tests.support.durations REPORT.xml")
    weights = from_junit(Path(argv[0]), RECORD.parent.parent)
    RECORD.write_text(json.dumps(weights, indent=0, sort_keys=True) + "\n")
    print(f"{RECORD}: {len(weights)} files, {sum(weights.values()):.0f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
