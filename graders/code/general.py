"""Grading a question's code items with a battery for any NumPy function (graders.code.spec):
one sandboxed job calls the student's function on every drawn case, and each item's check is
decided here on the validated results.

A check earns its points when it passes on every case of its groups (or in proportion, with
`credit: per_input`), times the smallest rubric share of the interface adaptations its passing
cases relied on. A check whose every case crashed is `submission_error` naming the exception
and its line; a crash on some cases (one class of inputs) fails only the checks that look at
them. Students never see a case's name, sizes or values, nor an exception message that could
quote them; the staff feedback does.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from fractions import Fraction

import numpy as np

from graders.code.calling import (
    CallPlan,
    MethodCall,
    Observed,
    build_job,
    observe,
    parameters_of,
    plan_call,
)
from graders.code.checks import Verdict
from graders.code.classes import classes_in, method_parameters
from graders.code.config import CodeCheckConfig
from graders.code.feedback import safe_message, student_problem, where_raised
from graders.code.functions import FunctionBattery, FunctionInstance
from graders.code.judging import Judged, judge, name_bug
from graders.code.redraw import drawn_generator, rearranged
from graders.code.spec import CheckSpec, FunctionAdaptation
from graders.results import Evidence, ItemResult, Status
from graders.rubric_model import RubricItem
from graders.sandbox import Job, JobOutcome, StudentError

ADAPTED_CONFIDENCE = 0.8
ADAPTED: dict[FunctionAdaptation, str] = {
    "by_name": "its parameters are in another order, so it was called with them by name",
    "extra_argument": "it requires an argument the question does not pass, so it was given it",
    "batch_dims": "it works only on batched inputs, so it was called with a batch of one",
    "extra_leading_axis": "it returns an extra leading axis of size 1, which was dropped",
    "swapped": "it returns its outputs in another order; they were read by their shapes",
    "output_only": "it returns only the first of the asked outputs",
    "extra_outputs": "it returns more than the asked output; the asked one was read by its "
                     "shape",
    "rounded": "its results match the reference only to about 1e-3 (rounded, or computed in "
               "lower precision)",
}

Make = Callable[..., ItemResult]  # the grader's result builder (item, points, status, ...)


@dataclass
class FunctionRun:
    instance: FunctionInstance
    source: str
    plan: CallPlan
    outcome: JobOutcome
    observations: list[Observed]
    renamed: bool = False  # another function was called in place of the asked one

    def crash(self, error: StudentError, case: str, for_student: bool, in_init: bool = False
              ) -> str:
        shown = safe_message(error, for_student, self.source)
        where = where_raised(self.source, error)
        on = "" if for_student else f" (on the input '{case}')"
        if in_init:  # a method's battery: the class's constructor, before the method ran
            return f"Your class's __init__ raised {shown}{where}{on}, so no method was called."
        return f"Your code raised {shown}{where}{on}."


def job_for(instance: FunctionInstance, source: str, function: str, batched: bool = False
            ) -> tuple[CallPlan, Job]:
    """The call plan and job for `function`, or for a method's battery `Class.method`: the
    class constructed with the battery's `init` (planned as a call is), then the method."""
    spec = instance.battery.spec
    cls, _, method = function.rpartition(".")
    signature = parameters_of(source, function)
    constructor = None
    if cls:
        shape = (classes_in(source) or {}).get(cls)
        signature = method_parameters(shape, method) if shape else None
        init = method_parameters(shape, "__init__") if shape else None
        optional_init = frozenset(n for n, p in spec.init.items() if p.optional)
        constructor = MethodCall(cls, plan_call(tuple(spec.init), {}, init, optional_init))
    optional = frozenset(n for n, p in spec.parameters.items() if p.optional)
    plan = plan_call(tuple(spec.parameters), spec.extras, signature, optional)
    if constructor is not None:
        # The constructor's adaptations count as the call's (the interface check sees them).
        init_plan = constructor.plan
        plan = replace(plan, constructor=init_plan.adaptations,
                       unsupplied=plan.unsupplied + init_plan.unsupplied,
                       left_out=plan.left_out + init_plan.left_out)
    if batched:
        plan = replace(plan, batched=True)
    return plan, build_job(instance, source, method or function, plan, constructor)


def can_batch(battery: FunctionBattery) -> bool:
    spec = battery.spec
    return spec.adaptation("batch_dims").allowed and any(p.batch for p in spec.parameters.values())


def usable(observations: list[Observed]) -> int:
    return sum(bool(o.outputs) for o in observations)


def observations_of(instance: FunctionInstance, outcome: JobOutcome, batched: bool,
                    not_run: str) -> list[Observed]:
    return observe(instance, outcome.calls, batched, not_run)


def _credit(battery: FunctionBattery, adaptations: frozenset[FunctionAdaptation]) -> Fraction:
    credit = Fraction(1)
    for name in adaptations:
        policy = battery.spec.adaptation(name)
        credit = min(credit, policy.credit if policy.allowed else Fraction(0))
    return credit


def _relied_on(check: CheckSpec, judged: list[Judged], run: FunctionRun
               ) -> frozenset[FunctionAdaptation]:
    found: set[FunctionAdaptation] = set()
    for verdict in judged:
        if verdict.verdict is Verdict.PASS:
            found |= run.observations[verdict.index].adaptations
            if verdict.rounded:
                found.add("rounded")
    found |= run.plan.adaptations & {"by_name", "extra_argument"}
    if check.kind in ("returns", "raises", "interface"):
        found = set()  # nothing was read through an adaptation
    return frozenset(found)


def _without_place(judged: Judged, run: FunctionRun) -> Judged:
    """Fails a passing case that gives a left-out parameter another value than its default:
    the function cannot be called so (at its default, leaving it out is the same call)."""
    case = run.instance.cases[judged.index]
    inputs = {**case.init, **case.inputs}
    parameters = run.instance.battery.spec.arguments
    given = [n for n in run.plan.left_out if n in inputs
             and not np.array_equal(np.asarray(inputs[n]), np.asarray(parameters[n].value))]
    if judged.verdict is not Verdict.PASS or not given:
        return judged
    named = ", ".join(f"`{n}`" for n in given)
    return Judged(judged.index, Verdict.FAIL, f"the function has no parameter {named}, which "
                  "the asked call passes")


def _drawn_weights(item: RubricItem, config: CodeCheckConfig, check: CheckSpec,
                   judged: list[Judged], run: FunctionRun, points: Fraction
                   ) -> tuple[Status, Fraction, str, str] | None:
    """A failed `allclose` check of a class whose constructor draws from the rng, results of
    the reference's shapes and no known bug named: weights drawn in another order or layout
    (graded as the `draw_order` adaptation says, else reviewed), or a difference nothing
    explains, which a person decides (the weights may be drawn otherwise, the computation
    right). None: not such a failure."""
    instance = run.instance
    output = check.output
    if check.kind != "allclose" or output is None or drawn_generator(instance) is None:
        return None
    if any(v.verdict is Verdict.CRASH for v in judged):
        return None
    for verdict in judged:
        expected = instance.expected[verdict.index]
        got = run.observations[verdict.index].outputs.get(output)
        if not isinstance(expected, dict) or got is None \
                or np.shape(got) != np.shape(expected[output]):
            return None
    indices = [v.index for v in judged]
    found = rearranged(instance, run.observations, indices, output, check.rtol, check.atol)
    suggested = f"the machine suggests {float(points):g} of {item.points} points"
    if found is None:
        return (Status.NEEDS_REVIEW, points, "Needs review: the results differ from the "
                "reference's built with the same rng, and neither a known bug nor the asked "
                "draws rearranged explains it; a constructor that draws other weights (scaled, "
                f"another shape or method of the rng) may still compute the asked function: "
                f"{suggested}.", "A person will check this item.")
    said = (f"the results equal the reference's with the rng's draws rearranged "
            f"({found.describe()}): the computation is right, the weights are drawn in "
            "another order or layout than the question asks.")
    told = ("Your code computes the asked function, but your constructor draws its weights "
            "from rng in another order or layout than the question asks, so they differ "
            "from the expected ones.")
    policy = instance.battery.spec.adaptation("draw_order")
    if not policy.allowed:
        return (Status.NEEDS_REVIEW, points, f"Needs review: {said} {suggested} (list the "
                "`draw_order` adaptation in the battery to grade this alone).",
                f"{told} A person will check this item.")
    earned = Fraction(str(item.points)) * policy.credit  # every case explained
    portion = "all" if policy.credit == 1 else str(policy.credit)
    return (Status.GRADED, earned, f"{said} The rubric gives this item {portion} of its "
            "points for it.", f"{told} The rubric gives this item {portion} of its points "
            "for it.")


def grade_item(item: RubricItem, config: CodeCheckConfig, run: FunctionRun, make: Make,
               notes: list[str], evidence: list[Evidence]) -> ItemResult:
    battery = run.instance.battery
    check = battery.spec.checks[config.check]
    if {"rtol", "atol"} & config.model_fields_set:
        check = check.model_copy(update={"rtol": config.rtol, "atol": config.atol})
    function = battery.checks.get(check.function) if check.function else None
    accept = battery.spec.adaptation("rounded").allowed
    judged = judge(check, run.instance, run.observations, function, accept)
    if check.kind == "interface" and run.plan.adaptations:
        # Called by name, with an extra argument or batched: not the asked interface.
        said = ", ".join(sorted(run.plan.adaptations))
        judged = [Judged(v.index, Verdict.FAIL, f"called through an adapted interface ({said})")
                  if v.verdict is Verdict.PASS else v for v in judged]
    if check.kind == "interface" and run.plan.left_out:
        # An optional asked parameter the function has no place for (`def softmax(x, *, T=1)`
        # for `temperature`): where an input gives it, the asked call would raise TypeError.
        judged = [_without_place(v, run) for v in judged]
    if check.kind == "interface" and run.renamed:
        # The interface asks for the function by its name: another one graded in its place
        # earns the other checks, never this one.
        what = "method" if battery.spec.is_method else "function"
        judged = [Judged(v.index, Verdict.FAIL, f"no {what} is named `{battery.function}`")
                  if v.verdict is Verdict.PASS else v for v in judged]
    cases = run.instance.cases
    shown = tuple(Evidence(kind="check", text=f"{cases[v.index].name}: {v.verdict.value}",
                           note=v.note) for v in judged)
    if not judged:
        return make(item, 0, Status.NEEDS_REVIEW, f"The battery has no input for the check "
                    f"'{config.check}'.", "", tuple(evidence) + shown, 0.0)
    passed = sum(v.verdict is Verdict.PASS for v in judged)
    crashed = [v for v in judged if v.verdict is Verdict.CRASH]
    staff: list[str] = []
    student: list[str] = []
    first_crash = next((run.observations[v.index] for v in crashed
                        if run.observations[v.index].error is not None), None)
    adaptations = _relied_on(check, judged, run)
    if len(crashed) == len(judged):
        status, points = Status.SUBMISSION_ERROR, Fraction(0)
        what = f"Not checked ({check.description})"
        if first_crash is not None and first_crash.error is not None:
            in_init = first_crash.in_init
            staff.append(f"{what}: "
                         f"{run.crash(first_crash.error, first_crash.case.name, False, in_init)}")
            student.append(f"{what}: {run.crash(first_crash.error, '', True, in_init)}")
        else:
            reason = crashed[0].note or "no result"
            staff.append(f"{what}: {reason}.")
            student.append(f"{what}: {student_problem(reason)}.")
    else:
        status = Status.GRADED
        share = (Fraction(passed, len(judged)) if config.credit == "per_input"
                 else Fraction(int(passed == len(judged))))
        credit = _credit(battery, adaptations) if passed else Fraction(1)
        points = share * Fraction(str(item.points)) * credit
        summary = f"Check: {check.description}. Passed on {passed} of {len(judged)} input(s)."
        staff.append(summary)
        student.append(summary)
        for verdict in [v for v in judged if v.verdict is not Verdict.PASS][:3]:
            staff.append(f"'{cases[verdict.index].name}': {verdict.note}.")
        if first_crash is not None and first_crash.error is not None:
            staff.append(run.crash(first_crash.error, first_crash.case.name, False,
                                   first_crash.in_init))
            said = run.crash(first_crash.error, "", True, first_crash.in_init)
            # Which class of inputs crashed, by the battery's group names (never a value).
            groups = sorted({cases[v.index].spec.group for v in crashed})
            which = f" (the {', '.join(groups)} inputs)" if len(check.groups) > 1 else ""
            student.append(f"On {len(crashed)} of these inputs{which} "
                           f"{said[0].lower()}{said[1:]}")
        if adaptations:
            words = "; ".join(ADAPTED[a] for a in sorted(adaptations))
            portion = "all" if credit == 1 else str(credit)
            staff.append(f"Graded through an adapted interface: {words}. The rubric gives this "
                         f"item {portion} of its points for it.")
            student.append(f"Your function was read through an adapted interface: {words}.")
    failed = [v.index for v in judged if v.verdict is not Verdict.PASS]
    if check.kind == "shape" and any(check.output in run.observations[i].extra_axis
                                     for i in failed):
        text = ("The result has an extra leading axis of size 1: the asked shape has no batch "
                "axis (remove the extra [np.newaxis, ...] / reshape).")
        staff.append(text)
        student.append(text)
    if any(v.rounded and v.verdict is not Verdict.PASS for v in judged):
        text = ("Your results match the reference only to about 1e-3 (rounded, or computed in "
                "lower precision), not to the check's tolerance.")
        staff.append(text)
        student.append(text)
    bugs = list(name_bug(run.instance, run.observations, failed)) if failed else []
    if failed:
        if check.hint:
            staff.append(check.hint)
            student.append(check.hint)
        for bug in bugs:
            staff.append(f"Likely bug: {bug.feedback} ({bug.evidence}.)")
            student.append(f"Likely bug: {bug.feedback}")
    redrawn = _drawn_weights(item, config, check, judged, run, points) \
        if status is Status.GRADED and not bugs and failed else None
    if redrawn is not None:
        status, points, said_staff, said_student = redrawn
        staff.append(said_staff)
        student.append(said_student)
    elif status is Status.GRADED and not bugs and any(
            v.rounded and v.verdict is not Verdict.PASS for v in judged):
        # Off by about 1e-3 (float32, rounding) and no known bug explains it: a careful grader
        # may read it either way, so a person decides, the machine's points the suggestion.
        status = Status.NEEDS_REVIEW
        staff.append(f"Needs review: the results are off only by about 1e-3 and no known bug "
                     f"explains it; the machine suggests {float(points):g} of {item.points} "
                     "points (list the `rounded` adaptation in the battery to accept such "
                     "results).")
        student.append("A person will check this item.")
    # Less than certain where this check's cases were read through an adaptation.
    everything = frozenset(a for v in judged for a in run.observations[v.index].adaptations) \
        | run.plan.adaptations
    # A near miss (about 1e-3) is one a careful grader may read either way.
    near = any(v.rounded for v in judged) or redrawn is not None
    confidence = ADAPTED_CONFIDENCE if everything or near else 1.0
    if check.kind == "interface" and everything:
        words = "; ".join(ADAPTED[a] for a in sorted(everything))
        staff.append(f"The function was graded by adapting to its interface: {words}.")
        student.append(f"Your function does not have the asked interface: {words}.")
    staff.extend(notes)
    student.extend(n for n in notes if not n.startswith("WARNING"))
    return make(item, points, status, " ".join(x for x in staff if x),
                " ".join(x for x in student if x), tuple(evidence) + shown, confidence)
