"""CPU per submission, per phase, of one grading process: where a regrade's time goes.

Grades synthetic submissions in this process after a warm-up, timing reading and locating
answers, each grader kind's parent-side work (CPU of this process), and the sandbox (CPU of
the zygote and of the job children it reaped, read from /proc).
"""

from __future__ import annotations

import os
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from app.grading.worker import WorkerOutcome
from graders.code import shared_sandbox
from graders.context import GradingContext, GradingResources
from graders.documents import read_submission
from graders.documents.model import ParsedSubmission
from graders.engine import grade_submission
from graders.registry import get_grader, registered_kinds
from graders.rubric import BUNDLED_RUBRICS, load_rubric
from tests.support.synthetic import submission

TICK = os.sysconf("SC_CLK_TCK")
PHASES = {
    "read": "reading the upload and locating every answer",
    "written": "written grader (patterns, embeddings)",
    "numeric": "numeric grader",
    "code": "code grader, in the grading process (extraction, job, checks, diagnosis)",
    "sandbox": "sandbox: zygote and the job's child (one per submission)",
    "engine": "engine and outcome (everything else in the grading process)",
}


def _zygote_cpu_s(pids: Sequence[int]) -> float:
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += sum(int(x) for x in fields[11:15])  # utime, stime, cutime, cstime
    return total / TICK


@dataclass
class GradingCost:
    n: int
    ms: dict[str, float] = field(default_factory=dict)
    items: int = 0

    @property
    def total_ms(self) -> float:
        return sum(self.ms.values())

    def table(self) -> str:
        lines = ["| phase | CPU ms / submission |", "|---|---:|"]
        lines += [f"| {PHASES[k]} | {self.ms.get(k, 0.0):.2f} |" for k in PHASES]
        lines.append(f"| **total per submission** | **{self.total_ms:.2f}** |")
        return "\n".join(lines)


def grading_cost(n: int, warm_up: int = 30) -> GradingCost:
    loaded = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml")
    resources = GradingResources(options={"allow_insecure_sandbox": False})
    spent: dict[str, float] = defaultdict(float)
    originals: dict[str, Callable[..., Any]] = {}
    for kind in registered_kinds():
        grader = get_grader(kind)
        assert grader is not None
        originals[kind] = grader.grade_items

        def timed(*args: Any, _kind: str = kind, **kwargs: Any) -> Any:
            started = time.process_time()
            try:
                return originals[_kind](*args, **kwargs)
            finally:
                spent[_kind] += time.process_time() - started

        grader.grade_items = timed  # type: ignore[method-assign]
    context = GradingContext(
        rubric=loaded.rubric,
        question=loaded.rubric.questions[0],
        submission=ParsedSubmission(text="", format="text", answers={}),
        resources=resources,
    )
    sandbox = shared_sandbox(context)
    documents = [submission(i) for i in range(warm_up + n)]
    items = 0
    try:
        for index, (raw, name, ctype) in enumerate(documents):
            if index == warm_up:
                spent.clear()
                zygote_before = _zygote_cpu_s(sandbox.zygote_pids())
                cpu_before = time.process_time()
            started = time.process_time()
            parsed = read_submission(raw, name, ctype, loaded.rubric)
            spent["read"] += time.process_time() - started
            outcome = grade_submission(loaded, parsed, resources)
            WorkerOutcome(
                status=outcome.status.value,
                rubric_hash=outcome.rubric_hash,
                items=outcome.items,
                answers={q: a.text for q, a in parsed.answers.items()},
            )
            items = len(outcome.items)
        total = time.process_time() - cpu_before
        sandbox_s = _zygote_cpu_s(sandbox.zygote_pids()) - zygote_before
    finally:
        for kind, original in originals.items():
            grader = get_grader(kind)
            if grader is not None:
                grader.grade_items = original  # type: ignore[method-assign]
        resources.close()
    cost = GradingCost(n, items=items)
    for phase in ("read", "written", "numeric", "code"):
        cost.ms[phase] = spent[phase] / n * 1000
    cost.ms["sandbox"] = sandbox_s / n * 1000
    cost.ms["engine"] = max(0.0, total - sum(spent.values())) / n * 1000
    return cost
