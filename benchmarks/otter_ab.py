"""`gradeformer import` of benchmarks/otter.py's 50 attention submissions alone (no Otter),
side by side for one or more source trees, alternating, with the load average of each run.

Each tree is a checkout of this project (this one by default; another commit made with
`git archive COMMIT | tar -x -C DIR`) run by this interpreter with the tree as its working
directory, so `python -m app.cli.main` imports that tree's code. CPU is counted as in
otter.py: a cgroup of the command's own (every descendant), when one can be made.

    python benchmarks/otter_ab.py [--tree DIR ...] [--rounds 4] [--workers N]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.otter import REPO, account, one_question_rubric, run_gradeformer, submissions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--tree", type=Path, action="append", default=[],
                        help="a source tree to run (repeatable; default: this one)")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--submissions", type=int, default=50)
    parser.add_argument("--workers", type=int, default=None, help="grading processes")
    parser.add_argument("--workdir", type=Path, default=REPO / "var" / "otter-ab")
    args = parser.parse_args()
    trees = [t.resolve() for t in args.tree] or [REPO]
    work = args.workdir.resolve()
    shutil.rmtree(work, ignore_errors=True)
    submissions(work / "submissions", args.submissions)
    rubric = one_question_rubric(work / "rubrics")
    times: dict[Path, list[tuple[float, float]]] = {tree: [] for tree in trees}
    try:
        for round_ in range(args.rounds):
            for tree in trees if round_ % 2 == 0 else trees[::-1]:
                load = os.getloadavg()[0]
                timed, graded = run_gradeformer(work / f"{tree.name}-{round_}",
                                                work / "submissions", rubric, args.workers,
                                                repo=tree)
                right = sum(all(checks.values()) for checks in graded.values())
                times[tree].append((timed.wall, timed.cpu))
                print(f"round {round_} {tree}: wall {timed.wall:.2f} s, CPU {timed.cpu:.2f} s, "
                      f"{right} of {len(graded)} right, load {load:.1f}", flush=True)
    finally:
        account().close()
    for tree, runs in times.items():
        walls, cpus = [w for w, _ in runs], [c for _, c in runs]
        print(f"{tree}: wall mean {statistics.mean(walls):.2f} s (min {min(walls):.2f}), "
              f"CPU mean {statistics.mean(cpus):.2f} s (min {min(cpus):.2f}); CPU counted by "
              f"{account().how}")


if __name__ == "__main__":
    main()
