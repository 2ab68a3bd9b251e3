"""The `code` grader: one sandboxed run of a question's battery scores all its code items."""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

from graders.code.battery import Battery
from graders.code.checks import (
    DESCRIPTIONS,
    CaseRun,
    CaseVerdict,
    Verdict,
    case_run,
    evaluate,
)
from graders.code.config import (
    DEFAULT_SALVAGE_NAMES,
    CodeCheckConfig,
    item_config,
)
from graders.code.diagnosis import Diagnosis, diagnose
from graders.code.extract import ExtractedCode
from graders.code.plan import NotRun, prepare_for, run_job
from graders.context import GradingContext
from graders.documents.model import LocatedAnswer
from graders.registry import Grader
from graders.results import Evidence, ItemResult, Status
from graders.rubric import RubricItem
from graders.sandbox import (
    JobOutcome,
    Sandbox,
    SandboxPolicy,
    SandboxRefused,
    SandboxUnavailable,
    StudentError,
)

SANDBOX_KEY = "sandbox"


def shared_sandbox(context: GradingContext) -> Sandbox:
    """The worker process's sandbox, built once from the operator's options."""
    options = context.resources.options

    def build() -> Sandbox:
        return Sandbox(SandboxPolicy.from_options(options),
                       size=int(options.get("sandbox_zygotes", 1)))

    return context.resources.shared(SANDBOX_KEY, build)


class _Run:
    """Everything known about one battery run, for building each item's result."""

    def __init__(self, code: ExtractedCode, battery: Battery, function: str,
                 outcome: JobOutcome, timeout_s: float) -> None:
        self.code = code
        self.battery = battery
        self.function = function
        self.outcome = outcome
        self.lines = code.source.splitlines()
        not_run = (outcome.stop_reason(timeout_s) if outcome.status != "completed"
                   else "was not run")
        self.runs: list[CaseRun] = [case_run(case, call, not_run)
                                    for case, call in zip(battery.cases, outcome.calls,
                                                          strict=True)]

    def line(self, number: int) -> str:
        if 1 <= number <= len(self.lines):
            return self.lines[number - 1].strip()
        return ""

    def where(self, error: StudentError) -> str:
        if not error.lines:
            return ""
        number = error.lines[-1]
        text = self.line(number)
        return f" at line {number}" + (f": `{text}`" if text else "")

    def first_crash(self) -> str:
        for run in self.runs:
            call = run.call
            if call is not None and not call.ok and call.error is not None:
                error = call.error
                return (f"Your code raised {error.type}: {error.message}{self.where(error)} "
                        f"(on the input '{run.case.spec.name}').")
        if any(run.call is None for run in self.runs):
            return f"Some inputs have no result: {self.outcome.stop_reason(0)}."
        return ""


def _result(item: RubricItem, question: str, points: Fraction | int, status: Status,
            feedback: str, evidence: tuple[Evidence, ...] = (), confidence: float = 1.0
            ) -> ItemResult:
    return ItemResult(item_id=item.id, question=question, points=points,
                      max_points=item.points, status=status, feedback=feedback,
                      evidence=evidence, confidence=confidence, grader=CodeGrader.kind,
                      grader_version=CodeGrader.version)


class CodeGrader(Grader):
    kind = "code"
    version = "1"
    config_model = CodeCheckConfig

    def grade(self, item: RubricItem, answer: LocatedAnswer, context: GradingContext) -> ItemResult:
        return self.grade_items([item], answer, context)[0]

    def grade_items(self, items: Sequence[RubricItem], answer: LocatedAnswer,
                    context: GradingContext) -> list[ItemResult]:
        configs = {item.id: item_config(item) for item in items}
        by_battery: dict[str, list[RubricItem]] = {}
        for item in items:
            by_battery.setdefault(configs[item.id].battery, []).append(item)
        results: dict[str, ItemResult] = {}
        for battery_name, group in by_battery.items():
            for result in self._grade_battery(battery_name, group, configs, answer, context):
                results[result.item_id] = result
        return [results[item.id] for item in items]

    def _grade_battery(self, battery_name: str, items: list[RubricItem],
                       configs: dict[str, CodeCheckConfig], answer: LocatedAnswer,
                       context: GradingContext) -> list[ItemResult]:
        question = context.question.id

        def all_items(status: Status, feedback: str, evidence: tuple[Evidence, ...] = (),
                      confidence: float = 1.0) -> list[ItemResult]:
            return [_result(i, question, 0, status, feedback, evidence, confidence)
                    for i in items]

        prepared = prepare_for(battery_name, answer, question, context)
        if isinstance(prepared, NotRun):
            return all_items(prepared.status, prepared.feedback, confidence=0.0)
        code, battery, function = prepared.code, prepared.battery, prepared.function
        evidence, notes = list(prepared.evidence), list(prepared.notes)
        defined = prepared.defined
        sandbox = shared_sandbox(context)
        try:
            outcome = run_job(sandbox, battery_name, prepared, context)
        except SandboxRefused as exc:
            return all_items(Status.NEEDS_REVIEW, f"{exc}.", tuple(evidence), confidence=0.0)
        except SandboxUnavailable as exc:
            return all_items(Status.GRADER_ERROR, f"The sandbox is unavailable ({exc}); this "
                             "item needs a human grader.", tuple(evidence), confidence=0.0)
        if outcome.insecure:
            notes.insert(0, "WARNING: this code ran in an INSECURE sandbox (the operator allowed "
                         "it; missing layers: " + ", ".join(outcome.insecure) + ").")
        if outcome.output:
            evidence.append(Evidence(kind="stdout", text=outcome.output[:2000],
                                     note=f"{outcome.output_total} bytes printed"))
        timeout = battery.timeout_s or sandbox.policy.timeout_s
        module = outcome.module
        if module is None:
            return all_items(Status.SUBMISSION_ERROR, " ".join(
                [f"Your code produced no result: {outcome.stop_reason(timeout)}.", *notes]),
                tuple(evidence))
        if module.syntax_error is not None:
            line, _, message = module.syntax_error
            text = code.source.splitlines()[line - 1].strip() if 0 < line <= len(
                code.source.splitlines()) else ""
            where = f" at line {line}" + (f": `{text}`" if text else "")
            return all_items(Status.SUBMISSION_ERROR, " ".join(
                [f"Your code does not parse (SyntaxError: {message}{where}).", *notes]),
                tuple(evidence))
        run = _Run(code, battery, function, outcome, timeout)
        for line, error in module.errors:
            notes.append(f"Line {line} (`{run.line(line)}`) raised {error.type}: "
                         f"{error.message}; the rest of the code still ran.")
        if all(r.call is not None and r.call.missing for r in run.runs):
            names = ", ".join(f"`{n}`" for n in defined) or "none"
            return all_items(Status.SUBMISSION_ERROR, " ".join(
                [f"Your code defines no function `{battery.function}` (functions found: "
                 f"{names}).", *notes]), tuple(evidence))
        salvage_names = tuple(dict.fromkeys(
            n for i in items for n in configs[i.id].salvage_names)) or DEFAULT_SALVAGE_NAMES
        verdicts = {item.id: evaluate(configs[item.id], run.runs) for item in items}
        everything_passed = all(v.verdict is Verdict.PASS
                                for found in verdicts.values() for v in found)
        diagnoses = [] if everything_passed else diagnose(
            battery, run.runs, outcome.output, salvage_names)
        return [self._item(item, configs[item.id], verdicts[item.id], run, diagnoses, notes,
                           evidence, question) for item in items]

    def _item(self, item: RubricItem, config: CodeCheckConfig, verdicts: list[CaseVerdict],
              run: _Run, diagnoses: list[Diagnosis], notes: list[str],
              evidence: list[Evidence], question: str) -> ItemResult:
        passed = sum(v.verdict is Verdict.PASS for v in verdicts)
        crashed = [v for v in verdicts if v.verdict is Verdict.CRASH]
        checks = tuple(Evidence(kind="check", text=f"{v.case.spec.name}: {v.verdict.value}",
                                note=v.note) for v in verdicts)
        description = DESCRIPTIONS[config.check]
        lines: list[str] = []
        if not verdicts:
            return _result(item, question, 0, Status.NEEDS_REVIEW,
                           f"The battery has no input for the check '{config.check}'.",
                           tuple(evidence) + checks, 0.0)
        if len(crashed) == len(verdicts):
            lines.append(f"Not checked ({description}): {run.first_crash() or crashed[0].note}")
            status, points = Status.SUBMISSION_ERROR, Fraction(0)
        else:
            status = Status.GRADED
            share = (Fraction(passed, len(verdicts)) if config.credit == "per_input"
                     else Fraction(int(passed == len(verdicts))))
            points = share * Fraction(str(item.points))
            lines.append(f"Check: {description}. Passed on {passed} of {len(verdicts)} input(s).")
            failed = [v for v in verdicts if v.verdict is not Verdict.PASS]
            for verdict in failed[:3]:
                lines.append(f"'{verdict.case.spec.name}': {verdict.note}.")
            if crashed:
                lines.append(run.first_crash())
            salvaged = {v.salvaged for v in verdicts if v.salvaged}
            if salvaged:
                lines.append(
                    f"Your function crashed before returning ({run.first_crash().rstrip('.')}); "
                    f"this check was decided on the `{', '.join(sorted(salvaged))}` it had "
                    "computed before the crash.")
        confidence = 0.8 if any(v.salvaged for v in verdicts) else 1.0
        if passed < len(verdicts):
            for diagnosis in diagnoses:
                lines.append(f"Likely bug: {diagnosis.feedback} ({diagnosis.evidence}.)")
        lines.extend(notes)
        return _result(item, question, points, status, " ".join(x for x in lines if x),
                       tuple(evidence) + checks, confidence)
