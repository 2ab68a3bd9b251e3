"""Expression forms read alike by the numeric and symbolic graders (graders.notation)."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.notation import expand_set_sums, fold_width, norm_names, standard_mu
from tests.support.pace import stretched


@given(st.text(max_size=300))
def test_folding_keeps_every_position(text: str) -> None:
    folded = fold_width(text)
    assert len(folded) == len(text)
    assert fold_width(folded) == folded
    for before, after in zip(text, folded, strict=True):
        assert before == after or ord(after) < 128


@given(st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126), max_size=200))
def test_ascii_text_is_not_folded(text: str) -> None:
    assert fold_width(text) == text


def test_full_width_punctuation_and_digits_read_as_ascii() -> None:
    assert fold_width("q_1 = β μ_a，q_2（１６）：、。") == "q_1 = β μ_a,q_2(16):,."
    assert fold_width("½ x²") == "½ x²"  # NFKC would change their meaning or length


def test_every_spelling_of_mu_is_mu() -> None:
    for written in (r"\micro_a", r"\upmu_a", r"\textmu_a", r"\muup_a", "µ_a", "μ_a"):
        assert standard_mu(written) in (r"\mu_a", "μ_a"), written
    assert standard_mu(r"\microsecond") == r"\microsecond"


def test_a_norm_is_one_name() -> None:
    for written in (r"\|k_a\|", r"\left\| k_a \right\|", r"\lVert k_a \rVert", "‖k_a‖", "||k_a||",
                    r"\|k_a\|_2", r"\|k_a\|_{2}"):
        assert norm_names(written) == r"\mathrm{norm}_{ka}", written
    squared = r"\frac{1}{\left\|u_{b}\right\|_{2}^{2}}"
    assert norm_names(squared) == r"\frac{1}{\mathrm{norm}_{ub}^{2}}"
    assert norm_names("a | b") == "a | b"


def test_a_sum_over_a_literal_set_is_written_out() -> None:
    assert expand_set_sums(r"\beta \sum_{i \in \{a, b\}} k_i") == r"\beta (k_{a} + k_{b})"
    assert expand_set_sums(r"\sum_{j=a,b} \mu_j") == r"(\mu_{a} + \mu_{b})"
    assert expand_set_sums(r"\sum_{i=1}^{n} k_i") == r"\sum_{i=1}^{n} k_i"


@settings(max_examples=30, deadline=None)
@given(st.text(alphabet="\\|{}_akmu ‖lVertrightef", max_size=2000))
def test_rewriting_is_bounded_on_hostile_text(text: str) -> None:
    started = time.perf_counter()
    norm_names(text * 4)
    expand_set_sums(text * 4)
    assert time.perf_counter() - started < stretched(0.5)
