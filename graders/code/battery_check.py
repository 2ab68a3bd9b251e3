"""A rubric's code batteries built as grading builds them, for `gradeformer rubric validate`."""

from __future__ import annotations

from pathlib import Path

from graders.code.battery import BatteryError
from graders.code.config import item_config
from graders.code.functions import load_any
from graders.rubric_checks import item_locs
from graders.rubric_model import Finding, Rubric


def battery_findings(rubric: Rubric) -> list[Finding]:
    """Each code battery the rubric names, built as grading builds it (its spec parsed, its
    trusted module imported, the reference run on every case, the known-bug variants run
    once): a broken battery is reported at the first item that names it. A general battery's
    variant that the cases cannot tell from the reference is reported too: it could never name
    its bug."""
    findings: list[Finding] = []
    seen: set[Path] = set()
    for loc, item in item_locs(rubric):
        if item.grader != "code" or not isinstance(item.config.get("battery"), str):
            continue
        try:
            path = item_config(item).path
        except ValueError:
            continue  # the config's own problem, reported by parse_rubric
        if path in seen:
            continue
        seen.add(path)
        name = item.config["battery"]
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
