"""Active grading (issue #29) on the answer-groups course, measured by correctness: the
synthetic transformer-basics class of `answer_groups_course.py` graded by a real server, then
every written item graded actively over HTTP by a simulated instructor who answers from the
generator's true grades (never from the machine's suggestion).

The generator writes each written answer from one of three statements per question (right,
partly right, wrong: tests/support/synthetic.py), paraphrased. Its true grade per item is below
(`TRUE_POINTS`, set by hand as a careful TA would grade each statement against each item's
title, before any run); an answer's statement is recovered from its text by word overlap with
the three statements. Reported like the Mohler run (`active_grading.py`), with "within" meaning
within 20% of the item's points (the written grader's agreement tolerance).

    python benchmarks/active_grading_course.py [--students 120] [--seed 15] [--cap 0.5]
                                               [--no-write]
"""

from __future__ import annotations

import argparse
import re
import signal
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

import httpx  # noqa: E402
from active_grading import drive_item, report  # noqa: E402
from answer_groups_course import course  # noqa: E402
from report import write_section  # noqa: E402

from app.auth.service import create_token  # noqa: E402
from app.db.migrate import upgrade  # noqa: E402
from app.db.session import make_engine, make_sessionmaker, unit_of_work  # noqa: E402
from tests.support.faultkit import Ledger, Server  # noqa: E402
from tests.support.synthetic import WRITTEN  # noqa: E402

SLUG = "transformer-basics"
# item -> points for statements (right, partly right, wrong) of its question.
TRUE_POINTS: dict[str, tuple[float, float, float]] = {
    "a1.nonseparable": (4, 2, 0), "a1.linear_boundary": (3, 2, 0),
    "a1.hidden_nonlinear": (3, 1, 0),
    "a2.collapse": (4, 3, 0), "a2.vanishing": (3, 1, 0), "a2.relu": (3, 0, 0),
    "a3.order": (3, 2, 0), "a3.sinusoidal": (2, 0, 0), "a3.learned": (2, 0, 0),
    "a3.rope": (3, 2, 0),
    "a4.roles": (3, 1, 0), "a4.scaling": (4, 1, 0), "a4.diagonal": (3, 0, 0),
    "a5.why_heads": (5, 0, 3), "a5.dims": (5, 0, 3),
    "a6.greedy": (4, 2, 0), "a6.beam": (4, 2, 0), "a6.example": (2, 0, 0),
}
_WORD = re.compile(r"[a-z0-9_]+")


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()[:5000]))


def statement(question: str, text: str) -> int:
    """Which of the question's three statements an answer paraphrases (most shared words,
    relative to the statement's own)."""
    found = _words(text)
    scores = [len(found & _words(s)) / max(1, len(_words(s))) for s in WRITTEN[question]]
    return max(range(3), key=lambda i: scores[i])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--students", type=int, default=120)
    parser.add_argument("--seed", type=int, default=15)
    parser.add_argument("--cap", type=float, default=0.5)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="active-course-") as tmp:
        folder = Path(tmp)
        url = f"sqlite:///{folder / 'db.sqlite'}"
        upgrade(url)
        engine = make_engine(url)
        with unit_of_work(make_sessionmaker(engine)) as session:
            token = create_token(session, "prof", "instructor").token
        engine.dispose()
        server = Server({"GRADEFORMER_DATABASE_URL": url, "GRADEFORMER_WORKERS": "2"},
                        folder / "server.log")
        server.start()
        try:
            ledger = Ledger(url)
            began = time.monotonic()
            with httpx.Client(base_url=server.base, timeout=600,
                              headers={"Authorization": f"Bearer {token}"}) as client:
                for student, raw, name, content_type in course(args.students, args.seed):
                    response = client.post(f"/api/v1/assignments/{SLUG}/submissions",
                                           params={"student": student},
                                           files={"file": (name, raw, content_type)})
                    response.raise_for_status()
                    ledger.acknowledged[int(response.json()["id"])] = response.json().get(
                        "sha256", "")
                ledger.wait_graded(1800)
                graded_s = time.monotonic() - began
                runs = []
                for item, points in TRUE_POINTS.items():
                    start = client.get(f"/api/v1/assignments/{SLUG}/items/{item}/active")
                    start.raise_for_status()
                    question = start.json()["question_id"]
                    truth = {a["submission_id"]: float(points[statement(question, a["answer"])])
                             for a in start.json()["answers"]}
                    run = drive_item(client, item, truth, args.cap, SLUG)
                    runs.append(run)
                    print(f"{item}: {len(run.steps) - 1} decisions, "
                          f"{run.steps[-1].within}/{run.size} within, {run.seconds:.1f} s",
                          file=sys.stderr)
        finally:
            server.signal_group(signal.SIGTERM)
    intro = (f"{args.students} synthetic transformer-basics students (seed {args.seed}, "
             "`benchmarks/answer_groups_course.py`: three statements per written question, "
             "right, partly right and wrong, each paraphrased), graded by a real server "
             "({graded_s:.0f} s for the uploads); then each of the 18 written items graded "
             "actively over HTTP: the proposal is decided with the statement's true grade for "
             "that item (`TRUE_POINTS`, set by hand), never the machine's suggestion. An answer "
             "is *within* when its points (the decision, else the machine's current suggestion) "
             "are within 20% of the item's points of the true grade.")
    body = report(runs, graded_s, args.cap, intro,
                  title="Active grading on the answer-groups course (the instructor answers "
                  "from the generator's true grades)", within="within 20% of the points")
    print(body)
    if not args.no_write:
        write_section("active_grading_course", body)


if __name__ == "__main__":
    main()
