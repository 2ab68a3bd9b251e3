"""A check that looks at one case drawn per submission is noted by `rubric validate`
(graders.code.battery_check.single_draws): whether a program wrong only at the edge that case
is meant to reach passes is then its draw's doing. Generated over the docs example's battery:
the edge case's repeat and seed, and other cases added to its group. A case whose every drawn
argument its `values` fix draws nothing (trial homework 11's "no occurrence", `values: {ids:
[...]}`, was noted as drawn)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.code.battery_check import single_draws
from graders.code.functions import load_function_battery
from graders.code.spec import CaseSpec

EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "examples" / "softmax-temperature"


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 4), st.none() | st.integers(0, 10**6),
       st.lists(st.tuples(st.sampled_from(["large", "main", "temp"]),
                          st.none() | st.integers(0, 99)), max_size=3), st.booleans())
def test_a_check_is_noted_exactly_when_its_groups_hold_one_drawn_case(
        repeat: int, seed: int | None, others: list[tuple[str, int | None]],
        fixed: bool) -> None:
    spec = load_function_battery(EXAMPLE / "softmax.yaml").spec
    values = {"x": [[1000.0, 0.0, -1000.0], [3.0, 2.0, 1.0]]} if fixed else {}
    cases = [c if c.group != "large" else c.model_copy(update={
        "repeat": repeat, "seed": seed, "values": {**c.values, **values}})
             for c in spec.cases]
    cases += [CaseSpec(name=f"extra {n}", group=group, seed=extra_seed)
              for n, (group, extra_seed) in enumerate(others)]
    noted = dict(single_draws(spec.model_copy(update={"cases": tuple(cases)})))
    alone = repeat == 1 and seed is None and not fixed and \
        not any(g == "large" for g, _ in others)
    assert ("stable" in noted) == alone
    assert "values" not in noted  # the main group holds several drawn cases
