"""The regrade after a code battery change alone, for side-by-side runs of two checkouts.

    python benchmarks/regrade_battery.py [--n 10000] [--repo PATH] [--check] [--distinct-code]

Runs `benchmarks/regrade.py`'s own steps from the checkout at `--repo` (default: this one), so
an older checkout is measured with its own code: store N synthetic submissions in a fresh
SQLite database, regrade them with an empty result cache (it fills), switch the B3 battery to
the changed copy and regrade again (the measured run); with `--check`, regrade the same rubric
with the cache off and compare every stored score. The code inputs are drawn per secret: both
checkouts get the same one (`--secret`), so they do the same work. Prints one line per run
(wall time, submissions/s, CPU ms per submission of the whole process tree and of the CLI,
load average before / after); writes nothing.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any


def _benchmark(repo: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location("regrade_bench", repo / "benchmarks/regrade.py")
    if spec is None or spec.loader is None:
        raise SystemExit(f"no benchmarks/regrade.py in {repo}")
    module = importlib.util.module_from_spec(spec)
    sys.modules["regrade_bench"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _line(run: Any) -> str:
    return (f"{run.label}: {run.elapsed:.1f} s, {run.rate:.0f}/s, {run.cpu_ms:.2f} ms CPU per "
            f"submission ({run.cli_ms:.2f} the CLI), load {run.load[0]:.1f} / {run.load[1]:.1f}; "
            f"{run.recomputed}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--n", type=int, default=10000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--repo", type=Path, default=Path(__file__).resolve().parent.parent)
    parser.add_argument("--secret", default="regrade-battery-benchmark",
                        help="the code input secret (the same for every checkout compared)")
    parser.add_argument("--check", action="store_true",
                        help="then regrade with the cache off and compare the stored scores")
    parser.add_argument("--distinct-code", action="store_true",
                        help="no two submissions share a program (each names its student)")
    args = parser.parse_args()
    repo = args.repo.resolve()
    os.environ["GRADEFORMER_CODE_INPUT_SECRET"] = args.secret
    os.chdir(repo)
    bench = _benchmark(repo)
    bench._adopt_orphans()
    print(f"{repo} at {args.n} submissions, {args.workers} grading processes", flush=True)
    with tempfile.TemporaryDirectory(prefix="gf-battery-") as tmp, bench.bench_battery():
        url = f"sqlite:///{Path(tmp) / 'bench.db'}"
        bench.upgrade(url)
        stored = bench.store(url, args.n, args.distinct_code)
        print(f"stored {args.n} submissions in {stored:.1f} s", flush=True)
        print(_line(bench.regrade("cache on, empty (first regrade)", url, args.n,
                                  args.workers, cache=True)), flush=True)
        text = bench.RUBRIC.read_text()
        for old, new in bench.EDITS["code battery"]:
            if old not in text:
                raise SystemExit(f"the rubric changed: {old!r} is gone")
            text = text.replace(old, new)
        bench.use_rubric(url, text, Path(tmp) / "rubrics-battery")
        print(_line(bench.regrade("after a code battery change", url, args.n, args.workers,
                                  cache=True)), flush=True)
        if args.check:
            cached = bench.stored_scores(url)
            print(_line(bench.regrade("same rubric, cache off (check)", url, args.n,
                                      args.workers, cache=False)), flush=True)
            same = bench.stored_scores(url) == cached and len(cached) > 0
            print("identical results: " + ("yes" if same else "NO, the scores differ"))


if __name__ == "__main__":
    main()
