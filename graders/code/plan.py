"""What a code question will run, and running a submission's code questions in one child.

Each code question's battery becomes one sandbox job. A submission that answers several code
questions (B3 and B4) pays for one sandboxed child instead of one per question: the first of
its code questions to be graded runs every job of the submission through
`Sandbox.run_together` and leaves the other outcomes in the context's per-submission scratch,
where the later questions find them. Each outcome is exactly what the job alone would give.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from graders.code.battery import Battery, BatteryError, load_battery
from graders.code.config import item_config, resolve_battery
from graders.code.extract import ExtractedCode, extract_code
from graders.context import GradingContext
from graders.documents.model import LocatedAnswer
from graders.results import Evidence, Status
from graders.sandbox import Job, JobOutcome, Sandbox

_OUTCOMES = "code.outcomes"
_PREPARED = "code.prepared"


@dataclass
class Prepared:
    """One battery's job for one answer, with what the feedback needs to say about it."""

    battery: Battery
    code: ExtractedCode
    job: Job
    function: str
    defined: dict[str, int]
    evidence: list[Evidence] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class NotRun:
    """Why nothing runs: every item of the battery gets this status and feedback."""

    status: Status
    feedback: str


def _top_level_functions(source: str) -> dict[str, int]:
    """Names of top-level functions and their positional parameter counts (parsed, not run)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    return {node.name: len(node.args.posonlyargs) + len(node.args.args)
            for node in tree.body if isinstance(node, ast.FunctionDef)}


def prepare(battery_name: str, answer: LocatedAnswer) -> Prepared | NotRun:
    try:
        battery = load_battery(resolve_battery(battery_name))
    except (BatteryError, ValueError) as exc:
        return NotRun(Status.GRADER_ERROR, f"The rubric's code battery is unusable: {exc}")
    code = extract_code(answer.text)
    if code is None:
        return NotRun(Status.NEEDS_REVIEW, "No Python code was found in this answer, so "
                      "nothing was run; a human should check it.")
    evidence = [Evidence(kind="answer", text=code.source[:4000],
                         note=f"the code that ran, read from {code.origin}")]
    evidence += [Evidence(kind="normalisation", text=n) for n in code.normalisations]
    notes: list[str] = []
    if code.normalisations:
        notes.append("Before running, the grader " + "; ".join(code.normalisations) + ".")
    function = battery.function
    defined = _top_level_functions(code.source)
    if function not in defined:
        candidates = [name for name, count in defined.items() if count == 3]
        if len(candidates) == 1:
            function = candidates[0]
            notes.append(f"No function is named `{battery.function}`; graded your "
                         f"`{function}` in its place.")
    job = battery.job(code.source)
    if function != battery.function:
        job = Job(job.source, job.arrays, tuple(type(c)(function, c.args) for c in job.calls),
                  job.timeout_s)
    return Prepared(battery, code, job, function, defined, evidence, notes)


def prepare_for(battery_name: str, answer: LocatedAnswer, question: str,
                context: GradingContext) -> Prepared | NotRun:
    """`prepare`, done once per submission, question and battery: the first code question
    prepares the others' jobs to run them together, and they find them here."""
    scratch = context.per_submission
    if scratch is None:
        return prepare(battery_name, answer)
    cache: dict[tuple[str, str], tuple[LocatedAnswer, Prepared | NotRun]] = scratch.setdefault(
        _PREPARED, {})
    hit = cache.get((question, battery_name))
    if hit is not None and hit[0] is answer:
        return hit[1]
    prepared = prepare(battery_name, answer)
    cache[(question, battery_name)] = (answer, prepared)
    return prepared


def _key(question: str, battery: str, job: Job) -> tuple[Any, ...]:
    return (question, battery, job.source, job.calls, job.timeout_s)


def _other_jobs(context: GradingContext) -> list[tuple[tuple[Any, ...], Job]]:
    """The jobs of the submission's code questions graded after this one (rubric order)."""
    found: list[tuple[tuple[Any, ...], Job]] = []
    questions = context.rubric.questions
    position = next(i for i, q in enumerate(questions) if q.id == context.question.id)
    for question in questions[position + 1:]:
        answer = context.submission.answers.get(question.id)
        if answer is None or not answer.text.strip():
            continue  # the engine reports it missing and never asks the code grader
        batteries = dict.fromkeys(item_config(item).battery for item in question.items
                                  if item.grader == "code")
        for battery in batteries:
            prepared = prepare_for(battery, answer, question.id, context)
            if isinstance(prepared, Prepared):
                found.append((_key(question.id, battery, prepared.job), prepared.job))
    return found


def run_job(sandbox: Sandbox, battery: str, prepared: Prepared,
            context: GradingContext) -> JobOutcome:
    """The job's outcome: left by an earlier question of this submission, or run now together
    with the jobs of the submission's code questions still to come. May raise what
    `Sandbox.run` raises."""
    scratch = context.per_submission
    key = _key(context.question.id, battery, prepared.job)
    if scratch is None:
        return sandbox.run(prepared.job)
    stored: dict[tuple[Any, ...], JobOutcome] = scratch.setdefault(_OUTCOMES, {})
    outcome = stored.pop(key, None)
    if outcome is not None:
        return outcome
    try:
        others = [(k, job) for k, job in _other_jobs(context) if k not in stored]
    except Exception:  # another question's problem is reported when that question is graded
        others = []
    if not others:
        return sandbox.run(prepared.job)
    outcomes = sandbox.run_together([prepared.job, *(job for _, job in others)])
    for (other_key, _), other in zip(others, outcomes[1:], strict=True):
        stored[other_key] = other
    return outcomes[0]
