"""The `code` grader: one sandboxed run of a question's battery scores all its code items."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path

from graders.code import general
from graders.code.battery import AdaptationName, Instance
from graders.code.checks import DESCRIPTIONS, CaseVerdict, Verdict, evaluate
from graders.code.config import DEFAULT_SALVAGE_NAMES, VERSION, CodeCheckConfig, item_config
from graders.code.determinism import as_varied, run_checked
from graders.code.diagnosis import Diagnosis, diagnose
from graders.code.extract import ExtractedCode
from graders.code.feedback import (
    adapted_words,
    safe_message,
    sentence,
    syntax_error,
    where_raised,
)
from graders.code.forms import Form, Observation, choose
from graders.code.libraries import review_outside_libraries
from graders.code.plan import NotRun, Prepared, PreparedFunction, prepare
from graders.context import GradingContext, GradingResources, Resource
from graders.documents.model import LocatedAnswer
from graders.kind import Grader
from graders.results import Evidence, ItemResult, Status
from graders.rubric_model import RubricItem
from graders.sandbox import (
    JobOutcome,
    Sandbox,
    SandboxPolicy,
    SandboxRefused,
    SandboxUnavailable,
)

SANDBOX_KEY: Resource[Sandbox] = Resource("sandbox")
ADAPTED_CONFIDENCE = 0.8


def _new_sandbox(resources: GradingResources) -> Sandbox:
    return Sandbox(SandboxPolicy.from_options(resources.options),
                   size=resources.settings.sandbox_zygotes)


def shared_sandbox(context: GradingContext) -> Sandbox:
    """The worker process's sandbox, built once from the operator's options."""
    return context.resources.shared(SANDBOX_KEY, lambda: _new_sandbox(context.resources))


def start_sandbox(resources: GradingResources) -> None:
    """Start the process's sandbox (its zygotes) now, before its first document. Kept only
    once started: when it cannot start, the first document starts it and meets the failure
    as it would have without this."""

    def started() -> Sandbox:
        sandbox = _new_sandbox(resources)
        try:
            sandbox.missing_required()
        except BaseException:
            sandbox.close()
            raise
        return sandbox

    with contextlib.suppress(SandboxUnavailable):
        resources.shared(SANDBOX_KEY, started)


@dataclass
class _Run:
    """Everything known about one battery run, for building each item's result."""

    code: ExtractedCode
    instance: Instance
    outcome: JobOutcome
    form: Form
    observations: list[Observation]
    timeout_s: float
    renamed: bool = False  # another function was called in place of the asked one

    def crash(self, for_student: bool) -> str:
        for obs in self.observations:
            call = obs.call
            if call is not None and not call.ok and call.error is not None:
                error = call.error
                where = where_raised(self.code.source, error)
                case = "" if for_student else f" (on the input '{obs.case.spec.name}')"
                shown = safe_message(error, for_student, self.code.source)
                return f"Your code raised {shown}{where}{case}."
        if any(obs.call is None for obs in self.observations):
            return f"Some inputs have no result: {self.outcome.stop_reason(self.timeout_s)}."
        return ""


def _result(item: RubricItem, question: str, points: Fraction | int, status: Status,
            feedback: str, student: str, evidence: tuple[Evidence, ...] = (),
            confidence: float = 1.0) -> ItemResult:
    return ItemResult(item_id=item.id, question=question, points=points,
                      max_points=item.points, status=status, feedback=feedback,
                      student_feedback=student or None, evidence=evidence,
                      confidence=confidence, grader=CodeGrader.kind,
                      grader_version=CodeGrader.version)


def _usable(observations: list[Observation]) -> int:
    return sum(o.output is not None for o in observations)


class CodeGrader(Grader):
    kind = "code"
    version = VERSION
    config_model = CodeCheckConfig

    def grade(self, item: RubricItem, answer: LocatedAnswer, context: GradingContext) -> ItemResult:
        return self.grade_items([item], answer, context)[0]

    def grade_items(self, items: Sequence[RubricItem], answer: LocatedAnswer,
                    context: GradingContext) -> list[ItemResult]:
        configs = {item.id: item_config(item) for item in items}
        by_battery: dict[Path, list[RubricItem]] = {}
        for item in items:
            by_battery.setdefault(configs[item.id].path, []).append(item)
        results: dict[str, ItemResult] = {}
        for path, group in by_battery.items():
            varied: list[str] = []  # why the program's two runs disagreed, if they did
            for result in self._grade_battery(path, group, configs, answer, context, varied):
                result = review_outside_libraries(result)
                results[result.item_id] = as_varied(result, varied[0]) if varied else result
        return [results[item.id] for item in items]

    def _grade_battery(self, path: Path, items: list[RubricItem],
                       configs: dict[str, CodeCheckConfig], answer: LocatedAnswer,
                       context: GradingContext, varied: list[str]) -> list[ItemResult]:
        question = context.question.id

        def all_items(status: Status, feedback: str, student: str,
                      evidence: tuple[Evidence, ...] = (), confidence: float = 1.0
                      ) -> list[ItemResult]:
            return [_result(i, question, 0, status, feedback, student, evidence, confidence)
                    for i in items]

        prepared = prepare(path, configs[items[0].id].battery, answer, context)
        if isinstance(prepared, NotRun):
            student = prepared.student or (
                "No Python code was found in this answer." if prepared.status is
                Status.NEEDS_REVIEW else "")
            return all_items(prepared.status, prepared.feedback, student,
                             confidence=prepared.confidence)
        evidence, notes = list(prepared.evidence), list(prepared.notes)
        sandbox = shared_sandbox(context)
        try:
            outcome, differed = run_checked(sandbox, prepared.job, context)
        except SandboxRefused as exc:  # each item waits or fails loudly, as its config says
            return [_result(i, question, 0, Status.GRADER_ERROR
                            if configs[i.id].when_isolation_missing == "error"
                            else Status.NEEDS_REVIEW, f"{exc}.", "", tuple(evidence), 0.0)
                    for i in items]
        except SandboxUnavailable as exc:
            return all_items(Status.GRADER_ERROR, f"The sandbox is unavailable ({exc}); this "
                             "item needs a human grader.", "", tuple(evidence), 0.0)
        if differed is not None:
            varied.append(differed)
        if outcome.insecure:
            notes.insert(0, "WARNING: this code ran in an INSECURE sandbox (the operator allowed "
                         "it; missing layers: " + ", ".join(outcome.insecure) + ").")
        if outcome.output:
            evidence.append(Evidence(kind="stdout", text=outcome.output[:2000],
                                     note=f"{outcome.output_total} bytes printed"))
        if outcome.stop_detail():
            evidence.append(Evidence(kind="check", text=outcome.stop_detail(),
                                     note="why the sandbox stopped (staff only)"))
        timeout = prepared.instance.battery.timeout_s or sandbox.policy.timeout_s
        module = outcome.module
        code = prepared.code
        if module is None:
            text = f"Your code produced no result: {outcome.stop_reason(timeout)}."
            return all_items(Status.SUBMISSION_ERROR, " ".join(
                [text, outcome.stop_detail(), *notes]), text, tuple(evidence))
        if module.syntax_error is not None:
            # Said in the parser's words here, not the child's (a program that writes its own
            # module frame could otherwise put anything in the message).
            found = syntax_error(code.source)
            if found is None:
                text = "Your code produced no result: its report of a syntax error was not the " \
                       "grader's."
                return all_items(Status.SUBMISSION_ERROR, " ".join([text, *notes]), text,
                                 tuple(evidence))
            line, message = found
            lines = code.source.splitlines()
            shown = lines[line - 1].strip() if 0 < line <= len(lines) else ""
            where = f" at line {line}" + (f": `{shown}`" if shown else "")
            kind = "" if message.split(":")[0].endswith("Error") else "SyntaxError: "
            text = f"Your code does not parse ({kind}{message}{where})."
            return all_items(Status.SUBMISSION_ERROR, " ".join([text, *notes]), text,
                             tuple(evidence))
        for line, error in module.errors:
            notes.append(f"Line {line} raised {safe_message(error, True, code.source)}; the "
                         "rest of the code still ran.")
            evidence.append(Evidence(kind="check", text=f"line {line}: "
                                     f"{safe_message(error, False)}", note="top-level error"))
        calls = outcome.calls
        if calls and all(c is not None and c.missing for c in calls):
            names = ", ".join(f"`{n}`" for n in prepared.defined) or "none"
            text = (f"Your code defines no function `{prepared.instance.function}` (functions "
                    f"found: {names}).")
            return all_items(Status.SUBMISSION_ERROR, " ".join([text, *notes]), text, (*evidence,))
        if isinstance(prepared, PreparedFunction):
            return self._grade_function(prepared, items, configs, sandbox, outcome, timeout,
                                        notes, evidence, context)
        battery = prepared.instance.battery
        if battery.check_names:  # the general format's names for the attention built-ins
            configs = {i.id: configs[i.id].model_copy(
                update={"check": battery.check(configs[i.id].check)}) for i in items}
        not_run = outcome.stop_reason(timeout) if outcome.status != "completed" else "was not run"
        form, observations = choose(prepared.instance, prepared.slots, calls, not_run)
        if not _usable(observations):
            form, observations, outcome = self._batched(prepared, sandbox, form, observations,
                                                        outcome, timeout, context)
        run = _Run(code, prepared.instance, outcome, form, observations, timeout,
                   prepared.function != prepared.instance.function)
        salvage_names = tuple(dict.fromkeys(
            n for i in items for n in configs[i.id].salvage_names)) or DEFAULT_SALVAGE_NAMES
        verdicts = {item.id: evaluate(configs[item.id], observations) for item in items}
        everything_passed = all(v.verdict is Verdict.PASS and not v.rounded
                                for found in verdicts.values() for v in found)
        diagnoses = [] if everything_passed else diagnose(
            prepared.instance, observations, outcome.output, salvage_names)
        return [self._item(item, configs[item.id], verdicts[item.id], run, diagnoses, notes,
                           evidence, question) for item in items]

    def _grade_function(self, prepared: PreparedFunction, items: list[RubricItem],
                        configs: dict[str, CodeCheckConfig], sandbox: Sandbox,
                        outcome: JobOutcome, timeout: float, notes: list[str],
                        evidence: list[Evidence], context: GradingContext) -> list[ItemResult]:
        """A general battery's items (graders.code.general)."""
        instance = prepared.instance
        not_run = outcome.stop_reason(timeout) if outcome.status != "completed" else "was not run"
        plan = prepared.plan
        observations = general.observations_of(instance, outcome, False, not_run)
        if not general.usable(observations) and general.can_batch(instance.battery) and any(
                o.crashed for o in observations):
            # Every call failed as asked: try a batch of one, kept when it explains more.
            batched_plan, job = general.job_for(instance, prepared.code.source,
                                                prepared.function, batched=True)
            try:
                second = run_checked(sandbox, job, context)[0]
            except (SandboxRefused, SandboxUnavailable):
                second = None
            if second is not None and second.module is not None \
                    and second.module.syntax_error is None:
                reason = (second.stop_reason(timeout) if second.status != "completed"
                          else "was not run")
                batched = general.observations_of(instance, second, True, reason)
                if general.usable(batched) > general.usable(observations):
                    plan, outcome, observations = batched_plan, second, batched
        run = general.FunctionRun(instance, prepared.code.source, plan, outcome, observations,
                                  prepared.function != instance.battery.function)
        question = context.question.id

        def make(item: RubricItem, points: Fraction | int, status: Status, feedback: str,
                 student: str, found: tuple[Evidence, ...], confidence: float) -> ItemResult:
            return _result(item, question, points, status, feedback, student, found,
                           confidence)

        return [general.grade_item(item, configs[item.id], run, make, notes, evidence)
                for item in items]

    def _batched(self, prepared: Prepared, sandbox: Sandbox, form: Form,
                 observations: list[Observation], outcome: JobOutcome, timeout: float,
                 context: GradingContext) -> tuple[Form, list[Observation], JobOutcome]:
        """Every call failed as asked: try a batch of one (the student's code may expect
        (batch, n, d) inputs); kept only when it explains more."""
        if not any(o.call is not None and not o.call.ok for o in observations):
            return form, observations, outcome
        if not prepared.instance.spec.adaptation("batch_dims").allowed:
            return form, observations, outcome
        job, slots, _ = prepared.batched()
        try:
            second = run_checked(sandbox, job, context)[0]
        except (SandboxRefused, SandboxUnavailable):
            return form, observations, outcome
        if second.module is None or second.module.syntax_error is not None:
            return form, observations, outcome
        not_run = second.stop_reason(timeout) if second.status != "completed" else "was not run"
        batched_form, batched = choose(prepared.instance, slots, second.calls, not_run)
        if _usable(batched) > _usable(observations):
            return batched_form, batched, second
        return form, observations, outcome

    def _item(self, item: RubricItem, config: CodeCheckConfig, verdicts: list[CaseVerdict],
              run: _Run, diagnoses: list[Diagnosis], notes: list[str],
              evidence: list[Evidence], question: str) -> ItemResult:
        if config.check == "interface" and run.renamed:
            # The interface asks for the function by its name: another one graded in its
            # place earns the other checks, never this one.
            verdicts = [replace(v, verdict=Verdict.FAIL,
                                note=f"no function is named `{run.instance.function}`")
                        if v.verdict is Verdict.PASS else v for v in verdicts]
        passed = sum(v.verdict is Verdict.PASS for v in verdicts)
        crashed = [v for v in verdicts if v.verdict is Verdict.CRASH]
        checks = tuple(Evidence(kind="check", text=f"{v.case.spec.name}: {v.verdict.value}",
                                note=v.note) for v in verdicts)
        description = DESCRIPTIONS[config.check]
        staff: list[str] = []
        student: list[str] = []
        if not verdicts:
            return _result(item, question, 0, Status.NEEDS_REVIEW,
                           f"The battery has no input for the check '{config.check}'.", "",
                           tuple(evidence) + checks, 0.0)
        adaptations = self._adaptations(config, verdicts, run)
        if len(crashed) == len(verdicts):
            staff.append(f"Not checked ({description}): {run.crash(False) or crashed[0].note}")
            student.append(f"Not checked ({description}): {run.crash(True) or 'no result'}")
            status, points = Status.SUBMISSION_ERROR, Fraction(0)
        else:
            status = Status.GRADED
            share = (Fraction(passed, len(verdicts)) if config.credit == "per_input"
                     else Fraction(int(passed == len(verdicts))))
            credit = self._credit(run.instance, adaptations) if passed else Fraction(1)
            points = share * Fraction(str(item.points)) * credit
            summary = f"Check: {description}. Passed on {passed} of {len(verdicts)} input(s)."
            staff.append(summary)
            student.append(summary)
            for verdict in [v for v in verdicts if v.verdict is not Verdict.PASS][:3]:
                staff.append(f"'{verdict.case.spec.name}': {verdict.note}.")
            if crashed:
                staff.append(run.crash(False))
                student.append(run.crash(True))
            if adaptations and config.check != "interface":
                portion = "all" if credit == 1 else str(credit)
                staff.append(sentence("Graded through an adapted interface: "
                                      + adapted_words(adaptations, False))
                             + f" The rubric gives this item {portion} of its points for it.")
                words = adapted_words(adaptations, True)
                if words:
                    student.append(sentence(words) + (
                        " Your result was read that way, for reduced credit." if credit < 1
                        else " Your result was read that way."))
            salvaged = {v.salvaged for v in verdicts if v.salvaged}
            if salvaged:
                text = (f"Your function crashed before returning; this check was decided on "
                        f"the `{', '.join(sorted(salvaged))}` it had computed before the crash.")
                staff.append(f"{text} ({run.crash(False).rstrip('.')})")
                student.append(text)
        if config.check == "interface" and run.form.adaptations | self._all_adaptations(run):
            words = adapted_words(self._all_adaptations(run), False)
            staff.append(sentence(f"The function was graded by adapting to its interface: "
                                  f"{words}"))
            student.append(sentence(adapted_words(self._all_adaptations(run), True)))
        decisive = not self._all_adaptations(run) and not any(
            v.salvaged or v.rounded for v in verdicts)
        confidence = 1.0 if decisive else ADAPTED_CONFIDENCE
        if passed < len(verdicts) or adaptations:
            for diagnosis in diagnoses:
                staff.append(f"Likely bug: {diagnosis.feedback} ({diagnosis.evidence}.)")
                student.append(f"Likely bug: {diagnosis.feedback}")
        staff.extend(notes)
        student.extend(n for n in notes if not n.startswith("WARNING"))
        return _result(item, question, points, status, " ".join(x for x in staff if x),
                       " ".join(x for x in student if x), tuple(evidence) + checks, confidence)

    @staticmethod
    def _all_adaptations(run: _Run) -> frozenset[AdaptationName]:
        found: set[AdaptationName] = set(run.form.adaptations)
        for obs in run.observations:
            found |= obs.adaptations
        return frozenset(found)

    @staticmethod
    def _adaptations(config: CodeCheckConfig, verdicts: list[CaseVerdict], run: _Run
                     ) -> frozenset[AdaptationName]:
        """The adaptations this item's passing verdicts relied on."""
        by_case = {id(o.case): o for o in run.observations}
        found: set[AdaptationName] = set()
        for verdict in verdicts:
            obs = by_case.get(id(verdict.case))
            if obs is None or verdict.verdict is not Verdict.PASS:
                continue
            found |= obs.adaptations
            if verdict.rounded and config.check in ("weights", "output", "stable"):
                found.add("rounded")  # a property (scaling, row sums) survives rounding
        if config.check != "weights":
            found.discard("derived_weights")  # only the weights item is about returning them
        return frozenset(found)

    @staticmethod
    def _credit(instance: Instance, adaptations: frozenset[AdaptationName]) -> Fraction:
        credit = Fraction(1)
        for name in adaptations:
            policy = instance.spec.adaptation(name)
            credit = min(credit, policy.credit if policy.allowed else Fraction(0))
        return credit


# The kind's one grader (`graders.code.GRADER`, registered by graders.registry).
GRADER = CodeGrader()
