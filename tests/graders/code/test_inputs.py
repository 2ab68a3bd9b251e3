"""Inputs nobody can predict (issue 10, Scope 3): drawn per submission from a secret seed in the
trusted parent, recorded with the result, reproduced by a regrade with the same secret."""

from __future__ import annotations

import hashlib

import numpy as np

from graders.code.battery import load_battery
from graders.code.config import resolve_battery
from graders.context import GradingResources
from graders.results import ItemResult
from tests.graders.code.conftest import grade_with
from tests.graders.code.test_grader import B3_CORRECT


def _seed(results: dict[str, ItemResult]) -> str:
    found = {e.text for r in results.values() for e in r.evidence if e.kind == "inputs"}
    assert len(found) == 1, found
    return found.pop()


def _table_attack(question: str, function: str, seeds: list[int]) -> str:
    """A submission holding the reference results for every input it has seen, keyed by the
    inputs' bytes, and zeros otherwise."""
    battery = load_battery(resolve_battery(f"transformer-basics/{question.lower()}.yaml"))
    table: dict[str, tuple[list[list[float]], list[list[float]]]] = {}
    for seed in seeds:
        for case in battery.instance(seed).cases:
            key = hashlib.sha256(b"".join(a.tobytes() for a in case.inputs)).hexdigest()
            output, weights = case.expected
            table[key] = (output.tolist(), weights.tolist())
    return (f"import hashlib\nimport numpy as np\nTABLE = {table!r}\n"
            f"def {function}(Q, K, V):\n"
            "    key = hashlib.sha256(Q.tobytes() + K.tobytes() + V.tobytes()).hexdigest()\n"
            "    if key in TABLE:\n"
            "        output, weights = TABLE[key]\n"
            "        return np.array(output), np.array(weights)\n"
            "    return np.zeros((Q.shape[0], V.shape[1])), np.zeros((Q.shape[0], K.shape[0]))\n")


def test_stored_outputs_for_inputs_seen_before_score_at_most_two_of_twenty() -> None:
    resources = GradingResources(options={"sandbox_timeout_s": 2.0,
                                          "code_input_secret": "course-secret"})
    try:
        seen = list(range(40))  # inputs of forty earlier gradings, however obtained
        b3 = grade_with(resources, "B3", _table_attack("B3", "attention", seen))
        b4 = grade_with(resources, "B4", _table_attack("B4", "masked_attention", seen))
    finally:
        resources.close()
    total = sum(r.points for r in (*b3.values(), *b4.values()))
    assert total <= 2, {k: (r.points, r.feedback) for k, r in (*b3.items(), *b4.items())}


def test_the_table_attack_would_win_on_the_inputs_it_stored() -> None:
    # The attack itself works: on the very inputs it stored, it returns the reference.
    battery = load_battery(resolve_battery("transformer-basics/b3.yaml"))
    namespace: dict[str, object] = {}
    exec(_table_attack("B3", "attention", [7]), namespace)  # the test's own code, not a student's
    case = battery.instance(7).cases[0]
    output, _ = namespace["attention"](*case.inputs)  # type: ignore[operator]
    assert np.allclose(output, case.expected[0])


def test_a_regrade_with_the_same_secret_reproduces_the_inputs_and_records_the_seed() -> None:
    def seed_with(secret: str, source: str) -> str:
        resources = GradingResources(options={"code_input_secret": secret})
        try:
            return _seed(grade_with(resources, "B3", source))
        finally:
            resources.close()

    first = seed_with("one", B3_CORRECT)
    assert first == seed_with("one", B3_CORRECT)
    assert first != seed_with("two", B3_CORRECT)
    assert first != seed_with("one", B3_CORRECT + "\n# changed\n")


def test_the_seed_never_reaches_the_student() -> None:
    resources = GradingResources(options={"code_input_secret": "s"})
    try:
        results = grade_with(resources, "B3", B3_CORRECT.replace("weights @ V, ", ""))
    finally:
        resources.close()
    seed = _seed(results).split()[-1]
    for result in results.values():
        assert seed not in (result.student_feedback or "")


def test_fixed_edge_cases_stay_fixed_and_the_others_change() -> None:
    battery = load_battery(resolve_battery("transformer-basics/b3.yaml"))
    one, two = battery.instance(1), battery.instance(2)
    for a, b in zip(one.cases, two.cases, strict=True):
        same = all(np.array_equal(x, y) for x, y in zip(a.inputs, b.inputs, strict=True))
        assert same == (a.spec.seed is not None), a.spec.name
