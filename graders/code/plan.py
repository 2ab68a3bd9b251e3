"""What a code question will run: the program (a notebook's cells up to the question's, in
order), the function and how to call it, and the inputs, drawn from a secret seed.

Each question runs in a sandboxed child of its own: programs of one student never share a
process, so one answer cannot rebind what another answer's function sees (numpy attributes,
the harness's result channel), whatever it does to its own process.

The seed: HMAC-SHA256 of the operator's `code_input_secret` over the question, the battery and
the exact program, so a regrade of the same answer reproduces the same inputs, no student can
compute them, and every result records the seed it was graded with. The service always passes
one (configured, or made once and kept beside its database); without any, the process draws
one at random.
"""

from __future__ import annotations

import ast
import hashlib
import hmac
import secrets
from dataclasses import dataclass, field, replace
from pathlib import Path

from graders.code.battery import BatteryError, Instance
from graders.code.calling import CallPlan
from graders.code.classes import resolve
from graders.code.extract import ExtractedCode, extract_code
from graders.code.fences import runnable_cells
from graders.code.forms import Form, Signature, Slot, build_job, forms_for
from graders.code.functions import FunctionBattery, FunctionInstance, load_any
from graders.code.general import job_for
from graders.code.imports import CONVENTION, DOCUMENT, borrowed_imports
from graders.code.libraries import library_evidence, unavailable_imports
from graders.context import GradingContext
from graders.documents.model import LocatedAnswer
from graders.results import Evidence, Status
from graders.sandbox import Job

_PROCESS_SECRET = secrets.token_bytes(32)


@dataclass
class Prepared:
    """One battery's job for one answer, with what the feedback needs to say about it."""

    instance: Instance
    code: ExtractedCode
    job: Job
    slots: list[Slot]
    function: str
    defined: dict[str, Signature]
    forms: list[Form]
    evidence: list[Evidence] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def batched(self) -> tuple[Job, list[Slot], list[Form]]:
        """The job trying a batch of one, and a batch and a head of one."""
        signature = self.defined.get(self.function)
        forms = [*forms_for(signature, batched=1), *forms_for(signature, 2)]
        job, slots = build_job(self.instance, self.code.source, self.function, forms,
                               self.instance.battery.timeout_s)
        return job, slots, forms


@dataclass(frozen=True)
class NotRun:
    """Why nothing runs: every item of the battery gets this status and feedback."""

    status: Status
    feedback: str
    student: str = ""
    confidence: float = 0.0


def module_bindings(source: str) -> frozenset[str] | None:
    """The names the module's own top-level statements bind (def, class, assignment, import,
    loop and with targets, in if/try/with/loop bodies too); None if it does not parse. A name
    bound only by exec or globals() is not among them."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    bound: set[str] = set()
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
            continue
        if isinstance(node, ast.Import | ast.ImportFrom):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
            continue
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
            targets = [node.target]
        elif isinstance(node, ast.With | ast.AsyncWith):
            targets = [i.optional_vars for i in node.items if i.optional_vars is not None]
        for target in targets:
            bound.update(n.id for n in ast.walk(target) if isinstance(n, ast.Name))
        bound.update(n.target.id for n in ast.walk(node)
                     if isinstance(n, ast.NamedExpr) and isinstance(n.target, ast.Name))
        for part in ("body", "orelse", "finalbody", "handlers"):
            for child in getattr(node, part, []):
                if isinstance(child, ast.ExceptHandler):
                    pending.extend(child.body)
                elif isinstance(child, ast.stmt):
                    pending.append(child)
        if isinstance(node, ast.Match):
            pending.extend(stmt for case in node.cases for stmt in case.body)
    return frozenset(bound)


def _top_level_functions(source: str) -> dict[str, Signature]:
    """Top-level functions with their positional parameters (parsed, never run)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    found: dict[str, Signature] = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names = tuple(a.arg for a in (*node.args.posonlyargs, *node.args.args))
            found[node.name] = Signature(names, len(names) - len(node.args.defaults))
    return found


def input_seed(context: GradingContext, battery: str, source: str) -> int:
    configured = context.resources.settings.code_input_secret
    secret = configured.encode() if configured else _PROCESS_SECRET
    message = "\x00".join((context.question.id, battery, source)).encode("utf-8", "replace")
    digest = hmac.new(secret, message, hashlib.sha256).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def _notebook_program(answer: LocatedAnswer, context: GradingContext
                      ) -> tuple[str, int] | None:
    """A notebook runs its cells in order in one namespace: the question's program is every
    code cell from the top of the notebook to the end of its answer, but an earlier cell that
    does not parse (another question's) fails alone in Jupyter, so it is left out (how many:
    the second value)."""
    submission = context.submission
    if submission.format != "notebook" or answer.end is None or answer.start is None:
        return None
    before = submission.text[:answer.start]
    if "```" not in before:
        return None
    earlier, skipped = runnable_cells(before)
    return earlier + "\n\n" + submission.text[answer.start:answer.end], skipped


@dataclass
class PreparedFunction:
    """A general battery's job for one answer (graders.code.general)."""

    instance: FunctionInstance
    code: ExtractedCode
    job: Job
    plan: CallPlan
    function: str
    defined: dict[str, Signature]
    evidence: list[Evidence] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def _unsupplied(plan: CallPlan, notes: list[str]) -> list[str]:
    if plan.unsupplied:
        notes.append(f"Your function requires {', '.join(f'`{n}`' for n in plan.unsupplied)}, "
                     "which the question does not pass; it was called without it.")
    return notes


def prepare(path: Path, battery_name: str, answer: LocatedAnswer, context: GradingContext
            ) -> Prepared | PreparedFunction | NotRun:
    try:
        battery = load_any(path)
    except (BatteryError, ValueError) as exc:
        return NotRun(Status.GRADER_ERROR, f"The rubric's code battery is unusable: {exc}")
    notebook, skipped = _notebook_program(answer, context) or (None, 0)
    code = extract_code(notebook if notebook is not None else answer.text)
    if code is None:
        return NotRun(Status.NEEDS_REVIEW, "No Python code was found in this answer, so "
                      "nothing was run; a human should check it.")
    notes: list[str] = []
    if notebook is not None:
        notes.append("As in Jupyter, the notebook's code cells ran in order in one namespace, "
                      "up to and including this question's.")
        if skipped:
            notes.append(f"{skipped} earlier code cell(s) that do not parse were left out, as "
                         "Jupyter runs the cells after a failing one.")
    else:
        borrowed, sources = borrowed_imports(code.source, context)
        if borrowed:
            code = replace(code, source=code.source.rstrip("\n") + "\n\n" + borrowed + "\n")
            said = borrowed if len(borrowed) <= 200 else borrowed[:200] + " …"
            where = " and ".join(s if s in (DOCUMENT, CONVENTION) else f"your answer to {s}"
                                 for s in sources)
            notes.append(f"Your code uses names it never imports or defines; `{said}` from "
                         f"{where} were added after it, as one notebook or file would have "
                         "them.")
    seed = input_seed(context, battery_name, code.source)
    try:
        instance = battery.instance(seed)
    except BatteryError as exc:
        return NotRun(Status.GRADER_ERROR, f"The rubric's code battery is unusable: {exc}")
    evidence = [Evidence(kind="answer", text=code.source[:4000],
                         note=f"the code that ran, read from {code.origin}"),
                Evidence(kind="inputs", text=f"seed {seed}",
                         note="the inputs were drawn from this seed (a regrade with the same "
                         "secret reproduces them)")]
    evidence += [Evidence(kind="normalisation", text=n) for n in code.normalisations]
    evidence += library_evidence(unavailable_imports(code.source))
    if code.normalisations:
        notes.append("Before running, the grader " + "; ".join(code.normalisations) + ".")
    function = battery.function
    defined = _top_level_functions(code.source)
    if isinstance(instance, FunctionInstance) and instance.battery.spec.is_method:
        target = resolve(code.source, function, list(defined), module_bindings(code.source))
        if target.problem:
            return NotRun(Status.SUBMISSION_ERROR, target.problem + " Nothing was run.",
                          target.problem, 1.0)
        notes += [target.note] if target.note else []
        function = f"{target.cls}.{target.method}"
        plan, job = job_for(instance, code.source, function)
        return PreparedFunction(instance, code, job, plan, function, defined, evidence,
                                _unsupplied(plan, notes))
    asked = len(battery.spec.parameters) if isinstance(battery, FunctionBattery) else 3
    bindings = module_bindings(code.source)
    # Bound at top level but not by a `def` (a lambda, an alias, a callable object): that is
    # what the asked name means, so it is called, not a function of another name.
    if function not in defined and (bindings is None or function not in bindings):
        own = defined
        if notebook is not None:  # another question's cells define other functions
            own_code = extract_code(answer.text)
            own = _top_level_functions(own_code.source) if own_code is not None else {}
        candidates = [name for name, signature in own.items()
                      if signature.required <= asked <= len(signature.names)
                      or signature.required == asked + 1]
        if len(candidates) == 1:
            function = candidates[0]
            notes.append(f"No function is named `{battery.function}`; graded your "
                         f"`{function}` in its place.")
    if bindings is not None and function not in bindings:
        # Nothing to call: no result the sandbox reports (whatever the program prints) is the
        # asked function's, and no item, the interface included, earns credit.
        names = ", ".join(f"`{n}`" for n in defined) or "none"
        said = f"Your code defines no function `{battery.function}` (functions found: {names})."
        return NotRun(Status.SUBMISSION_ERROR, said + " Nothing was run.", said, 1.0)
    if isinstance(instance, FunctionInstance):
        plan, job = job_for(instance, code.source, function)
        return PreparedFunction(instance, code, job, plan, function, defined, evidence,
                                _unsupplied(plan, notes))
    forms = forms_for(defined.get(function))
    job, slots = build_job(instance, code.source, function, forms, battery.timeout_s)
    return Prepared(instance, code, job, slots, function, defined, forms, evidence, notes)
