"""How long a `gradeformer` command takes to start and finish when it needs no server: `--help`
and `grade FILE` (offline, one JSON upload graded against the bundled transformer-basics
rubric), beside a bare interpreter start. With `--baseline DIR` (a checkout of another commit,
e.g. `git worktree add /tmp/base main`), the same commands run from DIR too, interleaved with
this tree's so the machine's noise falls on both alike.

Wall time is what a user waits; on a shared, loaded machine it mostly measures the other work,
so each run's CPU time (user + sys of the child) is reported beside it, with the load average,
and where `grade FILE`'s CPU goes: the `-X importtime` sums per package (the least of the runs
for each module) and the rest (reading the rubric, grading, output).

    python benchmarks/cli_startup.py [--runs 15] [--baseline DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.report import write_section

REPO = Path(__file__).resolve().parent.parent
GRADE = "gradeformer grade FILE"
COMMANDS = {
    "python -c pass": ["-c", "pass"],
    "gradeformer --help": ["-m", "app.cli.main", "--help"],
    GRADE: ["-m", "app.cli.main", "grade", "{file}", "--assignment", "transformer-basics",
            "--format", "json"],
}
# Import-time groups, by top-level module name; the rest is the standard library and others.
GROUPS = {
    "graders": ("graders",),
    "app": ("app",),
    "pydantic": ("pydantic", "pydantic_core", "pydantic_settings", "annotated_types",
                 "typing_inspection", "dotenv"),
    "typer, click, rich": ("typer", "click", "rich", "markdown_it", "pygments", "attr", "mdurl"),
    "PyYAML": ("yaml", "_yaml"),
    "NumPy": ("numpy",),
}
# What `grade FILE` still pays for, and why each is needed.
LEFT = (
    "What is left, each part needed by this command: pydantic (the rubric, result and settings "
    "models, and the result cache's codecs); the rubric model, the result model and the item "
    "configs of the rubric's three grader kinds (pydantic models, built at import); the "
    "numeric grader (its patterns compiled at import; factor reading only when an answer may "
    "state a factor); the grading function's module (app/grading/worker.py: the result cache's "
    "keys and codecs, the calibration context); PyYAML (its reader compiles a large character "
    "class at import); reading and checking the rubric once (every written element's pattern "
    "compiled to check it, the code items' batteries read); the operator's settings. After "
    "the warm-up run every run finds its results in the result cache (the same file, rubric "
    "and code), as a rubric author re-grading a sample does. Neither the web stack, the ORM, "
    "NumPy, the sentence model nor the sandbox is imported or started for this file: it "
    "answers no written or code item; nor typer and click, which read only a command line that "
    "app/cli/fast.py does not (tests/app/cli/test_fast.py); the collector is paused from "
    "start to exit. pydantic's plugin loader still imports importlib.metadata (about 2% of "
    "the command) to look for plugins that are off: skipping it would mean replacing a "
    "private pydantic module. `--help` imports neither typer nor "
    "pydantic: app/cli/help.py prints typer's panels with rich alone "
    "(tests/app/cli/test_help.py checks the text is typer's).\n"
)
IMPORT_LINE = re.compile(r"import time:\s+(\d+) \|\s+\d+ \|\s*(\S+)")


class Run:
    """One command's runs in one tree: wall and CPU seconds."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []


def _argv(args: list[str], file: Path, *flags: str) -> list[str]:
    return [sys.executable, *flags, *(a.replace("{file}", str(file)) for a in args)]


def _once(tree: Path, argv: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} in {tree} failed: {done.stderr[-1000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return elapsed, cpu, done.stderr


def _import_shares(tree: Path, argv: list[str], env: dict[str, str]) -> dict[str, float]:
    """Each group's share of one run's wall time spent importing it (`-X importtime` self
    times; on a loaded machine import and wall time stretch alike, so the shares hold)."""
    wall, _, stderr = _once(tree, argv, env)
    sums = dict.fromkeys([*GROUPS, "standard library and other"], 0.0)
    for match in IMPORT_LINE.finditer(stderr):
        top = match.group(2).split(".")[0]
        group = next((g for g, tops in GROUPS.items() if top in tops),
                     "standard library and other")
        sums[group] += int(match.group(1)) / 1e6 / wall
    return sums


def compile_trees(trees: dict[str, Path]) -> None:
    """Each tree's bytecode, as the install compiles it (Makefile): with PYTHONDONTWRITEBYTECODE
    set, a tree never compiled would otherwise compile its modules again at every run."""
    for tree in trees.values():
        subprocess.run([sys.executable, "-m", "compileall", "-q", "app", "graders"], cwd=tree,
                       check=True, capture_output=True)


def measure(trees: dict[str, Path], runs: int
            ) -> tuple[dict[str, dict[str, Run]], dict[str, dict[str, float]]]:
    """Wall and CPU per command and tree; per tree, `grade FILE`'s import shares (medians)."""
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch)
        file = folder / "answers.json"
        file.write_text(json.dumps({"answers": {"b1.d_head": "64", "b1.per_matrix": "589824"}}))
        env = dict(os.environ, OPENBLAS_NUM_THREADS="1",
                   GRADEFORMER_DATABASE_URL=f"sqlite:///{folder / 'g.db'}")
        times = {name: {label: Run() for label in trees} for name in COMMANDS}
        for args in COMMANDS.values():  # one warm-up each (the page cache, .pyc files)
            for tree in trees.values():
                _once(tree, _argv(args, file), env)
        for _ in range(runs):
            for name, args in COMMANDS.items():
                for label, tree in trees.items():
                    wall, cpu, _ = _once(tree, _argv(args, file), env)
                    times[name][label].wall.append(wall)
                    times[name][label].cpu.append(cpu)
        shares: dict[str, list[dict[str, float]]] = {label: [] for label in trees}
        for _ in range(min(runs, 5)):
            for label, tree in trees.items():
                argv = _argv(COMMANDS[GRADE], file, "-X", "importtime")
                shares[label].append(_import_shares(tree, argv, env))
    imports = {label: {group: statistics.median(s[group] for s in runs_)
                       for group in runs_[0]} for label, runs_ in shares.items()}
    return times, imports


def _seconds(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} s ({min(values):.3f} s)"


def report(times: dict[str, dict[str, Run]], imports: dict[str, dict[str, float]], runs: int,
           load: tuple[float, float]) -> str:
    labels = list(next(iter(times.values())))
    head = "| command | " + " | ".join(
        f"{label}: wall, median (min) | {label}: CPU, median (min)" for label in labels) + " |"
    lines = [head, "|---|" + "---|---|" * len(labels)]
    for name, by_tree in times.items():
        cells = [f"{_seconds(run.wall)} | {_seconds(run.cpu)}" for run in by_tree.values()]
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    cpu = {label: statistics.median(times[GRADE][label].cpu) for label in labels}
    split = ["| `grade FILE`'s CPU | " + " | ".join(labels) + " |", "|---|" + "---:|" * len(labels)]
    for group in next(iter(imports.values())):
        split.append(f"| imports: {group} | " + " | ".join(
            f"{imports[label][group] * cpu[label]:.3f} s" for label in labels) + " |")
    split.append("| imports in all | " + " | ".join(
        f"{sum(imports[label].values()) * cpu[label]:.3f} s" for label in labels) + " |")
    split.append("| the rest: interpreter start, reading and checking the rubric, grading, "
                 "output | " + " | ".join(
                     f"{(1 - sum(imports[label].values())) * cpu[label]:.3f} s"
                     for label in labels) + " |")
    return (
        "## Command start-up (`gradeformer --help`, offline `gradeformer grade FILE`)\n\n"
        f"A whole process, {runs} runs each, interleaved: wall time and CPU time (user + sys). "
        "`grade FILE` grades one JSON upload against the bundled transformer-basics rubric, no "
        "database, no server; neither it nor `--help` imports FastAPI, Starlette, uvicorn or "
        "SQLAlchemy (tests/app/cli/test_lazy.py). Targets on a quiet machine: `grade FILE` ≤ "
        "0.3 s, `--help` ≤ 0.2 s.\n\n" + "\n".join(lines) + "\n\n"
        f"Load average (1 min): {load[0]:.1f} before, {load[1]:.1f} after, on 2 cores: with a "
        "load above 2 the wall times mostly measure the other work, the CPU times much less "
        "(still inflated by shared caches).\n\n"
        "Where `grade FILE`'s CPU goes (its CPU median split by the share of a run's wall "
        "time each package's imports take, `-X importtime` self times, median of up to 5 runs "
        "per tree; on a loaded machine imports and the rest stretch alike):\n\n"
        + "\n".join(split) + "\n\n" + LEFT
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--baseline", type=Path, help="a checkout of another commit")
    args = parser.parse_args()
    trees = {"this tree": REPO}
    if args.baseline is not None:
        trees = {"baseline": args.baseline.resolve(), "this tree": REPO}
    compile_trees(trees)
    before = os.getloadavg()[0]
    times, imports = measure(trees, args.runs)
    body = report(times, imports, args.runs, (before, os.getloadavg()[0]))
    print(body)
    write_section("cli_startup", body)


if __name__ == "__main__":
    main()
