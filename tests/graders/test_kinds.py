"""The grader kinds through the registry: each kind's strategy speaks for its grader, and asking
a kind about its items does not import what grading it needs (a points-only regrade asks)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from graders import registry
from graders.kind import Kind

# What running a kind's grader needs, never what asking its strategy needs.
HEAVY = ("numpy", "sympy", "graders.sandbox", "graders.embedding.model",
         "graders.written.similarity", "graders.code.grader", "graders.written.grader",
         "graders.symbolic.grader", "graders.choice.grader")


@pytest.mark.parametrize("name", sorted(registry.KINDS))
def test_each_kind_has_a_strategy_that_speaks_for_its_grader(name: str) -> None:
    kind = registry.get_kind(name)
    assert isinstance(kind, Kind) and kind.name == name
    grader = registry.get_grader(name)
    assert grader is not None and grader.kind == name
    assert (kind.version, kind.config_model) == (grader.version, grader.config_model)
    assert registry.is_known_kind(name) and name in registry.registered_kinds()


@pytest.mark.parametrize("name", sorted(registry.KINDS))
def test_asking_a_kind_imports_none_of_its_grading(name: str) -> None:
    code = (
        "import sys\n"
        "from graders.registry import kind_of\n"
        f"kind = kind_of({name!r})\n"
        "kind.solution_text({}); kind.answer_values({})\n"
        f"print(','.join(sorted(m for m in sys.modules if m.split('.')[0] == 'numpy' "
        f"or any(m == h or m.startswith(h + '.') for h in {HEAVY!r}))))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    assert done.stdout.strip() == ""


def test_an_unknown_kind_has_the_plain_strategy_and_no_grader() -> None:
    plain = registry.kind_of("no-such-kind")
    assert not registry.is_known_kind("no-such-kind")
    assert registry.get_grader("no-such-kind") is None
    assert (plain.cacheable, plain.learns_from_overrides, plain.rescores_in_place,
            plain.carries_value) == (True, False, False, False)
