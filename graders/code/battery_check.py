"""A rubric's code batteries built as grading builds them, for `gradeformer rubric validate`."""

from __future__ import annotations

from pathlib import Path

from graders.code.battery import BatteryError
from graders.code.config import item_config
from graders.code.functions import FunctionBattery, load_any
from graders.code.spec import CaseSpec, FunctionBatterySpec
from graders.rubric_checks import item_locs
from graders.rubric_model import Finding, Loc, Rubric


def _batteries(rubric: Rubric) -> list[tuple[Loc, str, Path]]:
    """(the first item's location, the battery's name, its path) of each battery named."""
    found, seen = [], set()
    for loc, item in item_locs(rubric):
        if item.grader != "code" or not isinstance(item.config.get("battery"), str):
            continue
        try:
            path = item_config(item).path
        except ValueError:
            continue  # the config's own problem, reported by parse_rubric
        if path not in seen:
            seen.add(path)
            found.append((loc, str(item.config["battery"]), path))
    return found


def single_draws(spec: FunctionBatterySpec) -> list[tuple[str, str]]:
    """(check, case) for each check whose groups hold one case, drawn per submission (no
    `seed`, no `repeat`): whether a program wrong only at an edge the case is meant to reach
    passes it is then its draw's doing ("large logits" scaled by 1000 overflow an unguarded
    softmax only where some logit drawn is large enough)."""
    drawn = [name for name, p in {**spec.init, **spec.parameters}.items()
             if p.array is not None or p.generator]
    found = []
    for name, check in spec.checks.items():
        cases = [case for case in spec.cases if case.group in check.groups]
        if len(cases) == 1 and cases[0].repeat == 1 and cases[0].seed is None \
                and not _fixed(cases[0], drawn):
            found.append((name, cases[0].name))
    return found


def _fixed(case: CaseSpec, drawn: list[str]) -> bool:
    """The case draws nothing: its `values` give (or it omits) every array and generator."""
    return case.adjust is None and all(n in case.values or n in case.omit for n in drawn)


def battery_notes(rubric: Rubric) -> list[Finding]:
    """A general battery's checks that look at one drawn case (`single_draws`)."""
    notes = []
    for loc, name, path in _batteries(rubric):
        try:
            battery = load_any(path)
        except (BatteryError, ValueError):
            continue  # reported by battery_findings
        if not isinstance(battery, FunctionBattery):
            continue  # an attention battery draws its stability case to overflow every row
        for check, case in single_draws(battery.spec):
            notes.append(Finding((*loc, "config", "battery"), (
                f"battery {name!r}: check {check!r} looks at one case, {case!r}, drawn for "
                "each submission: a program wrong only where that draw reaches passes or fails "
                "by its draw; give the case repeat: 3 or more, or fixed values or a seed")))
    return notes


def battery_findings(rubric: Rubric) -> list[Finding]:
    """Each code battery the rubric names, built as grading builds it (its spec parsed, its
    trusted module imported, the reference run on every case, the known-bug variants run
    once): a broken battery is reported at the first item that names it. A general battery's
    variant that the cases cannot tell from the reference is reported too: it could never name
    its bug."""
    findings: list[Finding] = []
    for loc, name, path in _batteries(rubric):
        try:
            battery = load_any(path)
            same = battery.indistinguishable()
        except (BatteryError, ValueError) as exc:
            message = str(exc).replace("\n", " ")
            findings.append(Finding((*loc, "config", "battery"),
                                    f"battery {name!r} does not build: {message[:500]}"))
            continue
        for variant in same:
            findings.append(Finding((*loc, "config", "battery"), (
                f"battery {name!r}: the cases cannot tell variant {variant!r} from the "
                "reference (its results equal the reference's on every case); add a case on "
                "which the mistake changes the result, or the variant never names its bug")))
    return findings
