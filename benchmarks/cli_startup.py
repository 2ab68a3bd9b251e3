"""How long a `gradeformer` command takes to start and finish when it needs no server: `--help`
and `grade FILE` (offline, one JSON upload graded against the bundled transformer-basics
rubric), beside a bare interpreter start. With `--baseline DIR` (a checkout of another commit,
e.g. `git worktree add /tmp/base main`), the same commands run from DIR too, interleaved with
this tree's so the machine's noise falls on both alike.

    python benchmarks/cli_startup.py [--runs 15] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.report import write_section

REPO = Path(__file__).resolve().parent.parent
COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "gradeformer --help": ["-m", "app.cli.main", "--help"],
    "gradeformer grade FILE": ["-m", "app.cli.main", "grade", "{file}", "--assignment",
                               "transformer-basics", "--format", "json"],
}


def _once(tree: Path, args: list[str], env: dict[str, str], file: Path) -> float:
    argv = [sys.executable, *(a.replace("{file}", str(file)) for a in args)]
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} in {tree} failed: {done.stderr[-1000:]}")
    return elapsed


def measure(trees: dict[str, Path], runs: int) -> dict[str, dict[str, list[float]]]:
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        file = folder / "answers.json"
        file.write_text(json.dumps({"answers": {"b1.d_head": "64", "b1.per_matrix": "589824"}}))
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1",
                   GRADEFORMER_DATABASE_URL=f"sqlite:///{folder / 'g.db'}")
        times: dict[str, dict[str, list[float]]] = {
            name: {label: [] for label in trees} for name in COMMANDS}
        for args in COMMANDS.values():  # one warm-up each (the page cache, .pyc files)
            for tree in trees.values():
                _once(tree, args, env, file)
        for _ in range(runs):
            for name, args in COMMANDS.items():
                for label, tree in trees.items():
                    times[name][label].append(_once(tree, args, env, file))
    return times


def report(times: dict[str, dict[str, list[float]]], runs: int) -> str:
    labels = list(next(iter(times.values())))
    head = "| command | " + " | ".join(f"{label}: median (min)" for label in labels) + " |"
    lines = [head, "|---|" + "---|" * len(labels)]
    for name, by_tree in times.items():
        cells = [f"{statistics.median(t):.3f} s ({min(t):.3f} s)" for t in by_tree.values()]
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    return (
        "## Command start-up (`gradeformer --help`, offline `gradeformer grade FILE`)\n\n"
        f"Wall time of a whole process, {runs} runs each, interleaved. `grade FILE` grades one "
        "JSON upload against the bundled transformer-basics rubric, no database, no server; "
        "neither it nor `--help` imports FastAPI, Starlette, uvicorn or SQLAlchemy "
        "(tests/app/cli/test_lazy.py). Targets on a quiet machine: `grade FILE` ≤ 0.3 s, "
        "`--help` ≤ 0.2 s.\n\n" + "\n".join(lines) + "\n"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline", type=Path, help="a checkout of another commit")
    args = parser.parse_args()
    trees = {"this tree": REPO}
    if args.baseline is not None:
        trees = {"baseline": args.baseline.resolve(), "this tree": REPO}
    times = measure(trees, args.runs)
    body = report(times, args.runs)
    print(body)
    write_section("cli_startup", body)


if __name__ == "__main__":
    main()
