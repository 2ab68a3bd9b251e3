"""Golden location tests on the real seeds: where each question's answer starts.

The expected starts live in tests/graders/documents/cases/<seed>.yaml. After a deliberate change
to location, regenerate them with GRADEFORMER_UPDATE_GOLDEN=1 and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from graders.documents import read_submission
from graders.rubric import BUNDLED_RUBRICS, load_rubric
from tests.shared_data import shared_path

CASES = Path(__file__).with_name("cases")
UPDATE = os.environ.get("GRADEFORMER_UPDATE_GOLDEN") == "1"
SNIPPET = 40

SEEDS = [
    ("transformer-basics", "000_02a58be4e6a68d79.txt"),
    ("transformer-basics", "001_ee2365db649ca309.txt"),
    ("cs224n-attention", "004_208c69dc545de60d.txt"),
]

pytestmark = pytest.mark.shared


def _observed(slug: str, seed: str) -> dict[str, object]:
    rubric = load_rubric(BUNDLED_RUBRICS / f"{slug}.yaml").rubric
    path = shared_path("seeds", seed)
    parsed = read_submission(path.read_bytes(), path.name, None, rubric)
    answers = {
        qid: {"start": a.text[:SNIPPET], "end": a.text[-SNIPPET:], "method": a.method}
        for qid, a in parsed.answers.items()
    }
    return {"rubric": slug, "seed": seed, "answers": answers,
            "missing": sorted(parsed.missing)}


@pytest.mark.parametrize(("slug", "seed"), SEEDS, ids=[s for _, s in SEEDS])
def test_every_question_located_where_the_golden_file_says(slug: str, seed: str) -> None:
    golden_path = CASES / f"{Path(seed).stem}.yaml"
    observed = _observed(slug, seed)
    if UPDATE:
        golden_path.write_text(yaml.safe_dump(observed, allow_unicode=True, sort_keys=False))
    golden = yaml.safe_load(golden_path.read_text())
    assert observed["missing"] == golden["missing"]
    assert observed["answers"] == golden["answers"]


def test_seed_000_second_q6_and_restarted_part_b() -> None:
    rubric = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric
    path = shared_path("seeds", SEEDS[0][1])
    parsed = read_submission(path.read_bytes(), path.name, None, rubric)
    # the first "Q6" carries A5's dimensions, the second is A6
    assert "d_{\\text{head}} = \\text{dimensions per head}" in parsed.answers["A5"].text
    assert parsed.answers["A6"].text.startswith("Greedy decoding is suboptimal")
    assert "Greedy" not in parsed.answers["A5"].text
    # part B restarts at Q1: located as B1, with its sub-part (b) inside
    b1 = parsed.answers["B1"]
    assert b1.text.startswith("d_{\\text{head}} = \\frac{d_{\\text{model}}}{h}")
    assert "\\boxed{589824}" in b1.text
    assert b1.start is not None and parsed.text[b1.start:b1.end] == b1.text
    assert set(parsed.missing) == {"B3", "B4"}
    assert any("restarts" in note for note in parsed.notes)


def test_seed_004_inline_sub_labels_split_the_run_together_line() -> None:
    rubric = load_rubric(BUNDLED_RUBRICS / "cs224n-attention.yaml").rubric
    path = shared_path("seeds", SEEDS[2][1])
    parsed = read_submission(path.read_bytes(), path.name, None, rubric)
    assert parsed.answers["1b"].text.startswith("$q_{j \\neq a,b}")
    assert "\\Rightarrow q = \\frac{k_a + k_b}{\\sqrt{2}}" in parsed.answers["1b"].text
    assert parsed.answers["1c.i"].text.startswith("$q = \\frac{\\mu_a + \\mu_b}{\\sqrt{2}}$")
    assert "q_1 = \\frac{k_a + k_b}{2}" in parsed.answers["1d.i"].text
    assert "Same var" not in parsed.answers["1d.i"].text
    # the part-4 answers after 3g are not part of 3g
    assert "misinformation" not in parsed.answers["3g"].text
    assert "19.2" in parsed.answers["3g"].text
