"""Active grading on the answer-groups course without a server: the loop of
`active_grading_course.py` (the synthetic transformer-basics class, the simulated instructor
answering from `TRUE_POINTS`) through the functions the service calls, in one process, as
`active_grading_offline.py` does for Mohler. The answers are read from the uploads as the
service reads them (`read_submission`), the first 3% duplicates included; each answer is
graded as a one-question submission (the stored score of the HTTP run grades the whole file,
so the first column can differ a little). The HTTP benchmark stays the measurement of record.

    python benchmarks/active_grading_course_offline.py [--students 120] [--seed 15]
                                                       [--cap 0.25] [--cache FILE] [--json FILE]
                                                       [--every-check | --near-done F]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

from active_grading import report  # noqa: E402
from active_grading_course import SLUG, TRUE_POINTS, statement  # noqa: E402
from active_grading_offline import (  # noqa: E402
    Cache,
    checks_options,
    simulate,
    use_checks_options,
)
from answer_groups_course import course  # noqa: E402

from app.active import rescore  # noqa: E402
from app.settings import Settings  # noqa: E402
from graders.documents.submission import read_submission  # noqa: E402
from graders.rubric import load_rubric  # noqa: E402
from graders.rubric_model import BUNDLED_RUBRICS  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=120)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--cap", type=float, default=0.25)
    parser.add_argument("--cache", type=Path, default=None)
    parser.add_argument("--json", type=Path, default=None, help="also write the runs here")
    checks_options(parser)
    args = parser.parse_args()
    use_checks_options(args)
    loaded = load_rubric(BUNDLED_RUBRICS / f"{SLUG}.yaml")
    parsed = [read_submission(raw, name, kind, loaded.rubric)
              for _, raw, name, kind in course(args.students, args.seed)]
    resources = rescore.resources_for(Settings().grading_options())
    cache = Cache(args.cache)
    runs = []
    try:
        for question in loaded.rubric.questions:
            for item in question.items:
                if item.id not in TRUE_POINTS:
                    continue
                # Upload n is submission n + 1 in the HTTP run's fresh database: the audit
                # draws hash the ids, so they pick the same answers.
                kept = [(n + 1, p.answers[question.id].text) for n, p in enumerate(parsed)
                        if question.id in p.answers and p.answers[question.id].text.strip()]
                texts = [t for _, t in kept]
                truth = [float(TRUE_POINTS[item.id][statement(question.id, t)]) for t in texts]
                tolerance = 0.2 * float(item.points)
                runs.append(simulate(loaded, question.id, item.id, texts, truth, args.cap,
                                     resources, cache, tolerance, SLUG, [n for n, _ in kept]))
                print(f"{item.id}: {runs[-1].steps[-1].within}/{runs[-1].size} within",
                      file=sys.stderr)
    finally:
        cache.save()
    print(report(runs, 0.0, args.cap, f"Offline simulation, course of {args.students} "
                 f"(seed {args.seed}).", title="Active grading on the answer-groups course",
                 within="within 20% of the points"))
    if args.json is not None:
        args.json.write_text(json.dumps([{"item": r.item, "size": r.size, "steps": [
            vars(s) for s in r.steps]} for r in runs]))


if __name__ == "__main__":
    main()
