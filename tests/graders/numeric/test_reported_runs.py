"""Reported accuracies are matched to the run they report by the words around them.

Students report every run of the coding part together (one paragraph, a list or a table, in any
order) or under each part's label; each plausibility item must read its own run's value (no
pretraining, the London baseline, pretrained, RoPE), never another run's, and never a number
from the handout's wording.
"""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingResources
from graders.documents.submission import read_submission
from graders.engine import grade_submission
from graders.rubric import BUNDLED_RUBRICS, load_rubric

LOADED = load_rubric(BUNDLED_RUBRICS / "cs224n-attention.yaml")
RUNS = {
    "3d": ["No pretraining", "Without pretraining", "Trained from scratch", "Vanilla model (no "
           "pretraining)", "Not pretrained"],
    "3d.baseline": ["London baseline", "Always predicting London", "Baseline (London)"],
    "3f": ["Pretrained and finetuned", "With pretraining", "After pretraining and fine-tuning",
           "Pretrained model"],
    "3g": ["RoPE", "With rotary embeddings (RoPE)", "RoPE variant"],
}
RANGES = {"3d": (0.4, 3.0), "3d.baseline": (5.0, 5.0), "3f": (15.0, 30.0), "3g": (12.0, 35.0)}


def _value(draw: st.DrawFn, item: str) -> Decimal:
    low, high = RANGES[item]
    if low == high:
        return Decimal(str(low))
    tenths = draw(st.integers(int(low * 10), int(high * 10)))
    return Decimal(tenths) / 10


@st.composite
def reports(draw: st.DrawFn) -> tuple[str, dict[str, Decimal]]:
    items = draw(st.permutations(list(RUNS)))
    values = {item: _value(draw, item) for item in items}
    names = {item: draw(st.sampled_from(RUNS[item])) for item in items}
    form = draw(st.sampled_from(["paragraph", "list", "table"]))
    if form == "paragraph":
        body = " ".join(f"{names[i]}: {values[i]}% dev accuracy." for i in items)
    elif form == "list":
        body = "\n".join(f"- {names[i]}: {values[i]}%" for i in items)
    else:
        rows = "\n".join(f"| {names[i]} | {values[i]}% |" for i in items)
        body = f"| run | dev accuracy |\n|---|---|\n{rows}"
    heading = draw(st.sampled_from(["## Results", "# 3. Coding results", "Results:"]))
    return f"{heading}\n\n{body}\n", values


@settings(max_examples=150, deadline=None)
@given(reports())
def test_each_run_reads_its_own_value(report: tuple[str, dict[str, Decimal]]) -> None:
    text, values = report
    parsed = read_submission(text.encode(), "results.md", "text/markdown", LOADED.rubric)
    outcome = grade_submission(LOADED, parsed, GradingResources())
    by_id = {r.item_id: r for r in outcome.items}
    for item, value in values.items():
        result = by_id[item]
        assert result.status.value != "missing", (item, text)
        reported = [e.text for e in result.evidence if e.kind == "value"]
        assert reported, (item, text, result.feedback)
        assert any(str(value) in r for r in reported), (item, value, reported, text)
