"""The CS224N attention rubrics' written items on answers of our own writing (issue #29).

The rubrics state their ideas as phrasings, with few patterns left (formulas, symbols and
students' short forms). These answers are written the ways students write them: plain words,
LaTeX, shorthand, the reason first or last, and wrong answers on the subject. A grade the
machine gives on its own (`graded`) must lie in the range a careful grader would give; an
answer it is unsure of may go to review.

Two classes are generated (hypothesis): the copying condition in formula form (k_j^T q, q^T k_j,
LaTeX, with any comparative and any statement about the other keys), and the two sides of the
noisy key in the single-head case (c, the output or "it" close to v_a or v_b, in words or
symbols).
"""

from __future__ import annotations

from decimal import Decimal
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingResources
from graders.results import ItemResult, Status
from graders.rubric import Rubric, bundled_rubric_paths, load_rubric
from tests.graders.written.conftest import grade_text

NEW, OLD = "cs224n-attention", "cs224n-attention-2021"

# (rubrics, question, answer, low, high): the points a careful grader gives (the question's
# written items together)
CASES: list[tuple[tuple[str, ...], str, str, float, float]] = [
    # copying: the condition (1a.i / 1a)
    ((NEW, OLD), "1a", "We need k_j^T q >> k_i^T q for every i != j, so the softmax puts almost "
     "all weight on j.", 2, 2),
    ((NEW, OLD), "1a", "The query must be much more aligned with k_j than with any other key: its "
     "dot product with k_j is huge while the dot products with the other keys are close to "
     "zero.", 2, 2),
    ((NEW, OLD), "1a", "q^T k_j has to be very large compared to q^T k_i for all other i.", 2, 2),
    ((NEW, OLD), "1a", "This happens when the query and k_j are very similar, and q is "
     "orthogonal to every other key.", 2, 2),
    ((NEW, OLD), "1a", r"$\alpha_j \approx 1$ requires $q^T k_j$ to be much bigger than "
     r"$q^T k_i$ for $i \ne j$.", 2, 2),
    ((NEW, OLD), "1a", "When k_j^T q is large.", 1, 1),
    ((NEW, OLD), "1a", "When the value v_j is much larger than the other values.", 0, 0),
    ((NEW, OLD), "1a", "When the values v_i are orthogonal to each other.", 0, 0),
    # copying: the output (1a.ii)
    ((NEW,), "1a.ii", "Then c is approximately v_j.", 1, 1),
    ((NEW,), "1a.ii", "The attention output just copies v_j, the value at position j.", 1, 1),
    ((NEW,), "1a.ii", "c becomes v_j.", 1, 1),
    ((NEW,), "1a.ii", "c is a uniform average of the values.", 0, 0),
    # one key's norm varies (1c.ii)
    ((NEW, OLD), "1c.ii", "When ||k_a|| is large, alpha_a -> 1 and c ≈ v_a; when it is small, "
     "alpha_b -> 1 and c ≈ v_b. So c has high variance across samples.", 3, 3),
    ((NEW, OLD), "1c.ii", "If k_a comes out longer than mu_a, k_a^T q dominates and the output is "
     "close to v_a; if it is shorter, the weight goes to b and c is close to v_b. Across "
     "samples c therefore jumps between v_a and v_b instead of staying at their average.", 3, 3),
    ((NEW, OLD), "1c.ii", "c will oscillate between v_a and v_b depending on the sample, so its "
     "variance is large.", 2, 3),
    ((NEW, OLD), "1c.ii", "c becomes unstable: depending on the sample it is close to v_a or "
     "close to v_b.", 2, 3),
    ((NEW, OLD), "1c.ii", "c is still approximately (v_a + v_b)/2 because the noise averages "
     "out.", 0, 0),
    ((NEW, OLD), "1c.ii", "c ~ 1/2 (v_a + v_b) with a small variance.", 0, 0),
    ((NEW, OLD), "1c.ii", "The variance of c is low because the keys are close to their means.",
     0, 0),
    # two heads (1d.ii)
    ((NEW, OLD), "1d.ii", "Head 1 always attends to a and head 2 to b, so c_1 ≈ v_a and c_2 ≈ "
     "v_b whatever the norm of k_a; c stays close to (v_a + v_b)/2 with low variance.", 2, 2),
    ((NEW, OLD), "1d.ii", "Each head only needs to copy one value, so the norm of k_a no longer "
     "matters: c is stable and about the average of v_a and v_b.", 2, 2),
    ((NEW, OLD), "1d.ii", "The variance of c is much smaller than with a single head.", 1, 1),
    ((NEW, OLD), "1d.ii", "c still jumps between v_a and v_b, the same as before.", 0, 0),
    ((NEW, OLD), "1d.ii", "c has high variance because k_a still varies.", 0, 0),
    ((NEW, OLD), "1d.ii", "c is not stable: its variance stays high, because k_a still "
     "varies.", 0, 0),
    # why several heads (1e)
    ((NEW,), "1e", "It reduces the variance of the output since each head only focuses on one "
     "key.", 1, 1),
    ((NEW,), "1e", "Multiple heads let each head attend to one key independently, so the output "
     "is more robust.", 1, 1),
    ((NEW,), "1e", "Several heads mean more parameters, so the model is bigger.", 0, 0),
    ((NEW,), "1e", "It does not help; a single head can do the same.", 0, 0),
    ((NEW,), "1e", "The output is not more robust or stable; the heads only add "
     "parameters.", 0, 0),
    # permutation (2a.i, 2a.ii)
    ((NEW,), "2a.i", "Q_perm = P X W_Q = P Q, K_perm = P K, V_perm = P V. Then softmax(P Q K^T "
     "P^T / sqrt(d)) = P softmax(Q K^T / sqrt(d)) P^T, and since P^T P = I, H_perm = P H. The "
     "ReLU acts elementwise so Z_perm = P Z.", 3, 3),
    ((NEW,), "2a.ii", "Without position information the model cannot tell different word orders "
     "apart.", 1, 1),
    ((NEW,), "2a.ii", "It means the model cannot distinguish between different orderings of the "
     "words.", 1, 1),
    ((NEW,), "2a.ii", "The model is permutation equivariant, so word order is lost.", 1, 1),
    ((NEW,), "2a.ii", "The model can still learn the word order from the attention weights.", 0,
     0),
    ((NEW,), "2a.ii", "It means the model is faster to train.", 0, 0),
    # position embeddings (2b.i, 2b.ii)
    ((NEW,), "2b.i", "Yes. Adding Phi gives each position its own vector, and Phi does not move "
     "when the tokens are permuted, so the output changes and order matters.", 1, 1),
    ((NEW,), "2b.i", r"Yes: $P(X + \Phi) \neq PX + \Phi$, so the layer is no longer "
     "equivariant.", 1, 1),
    ((NEW,), "2b.i", "No, the model stays permutation equivariant even with position "
     "embeddings.", 0, 0),
    ((NEW,), "2b.i", "No. Adding the embeddings does not break the symmetry, and order does "
     "not matter.", 0, 0),
    ((NEW,), "2b.ii", "No. The lowest frequency has a period of 2 pi * 10000, far longer than "
     "any sequence, so no two positions share an embedding.", 1, 1),
    ((NEW,), "2b.ii", "No, each position has a unique embedding for realistic sequence "
     "lengths.", 1, 1),
    ((NEW,), "2b.ii", "Yes, since sine is periodic two positions can get the same embedding.", 0,
     0),
    # the 2021-2022 handout's own questions
    ((OLD,), "1b.i", "Let A = [a_1 ... a_m]. Take M = A A^T. Then M v_b = 0 because a_i^T b_j = "
     "0, and M v_a = v_a because A^T A = I.", 2, 2),
    ((OLD,), "1b.i", r"$M = \sum_{i=1}^m a_i a_i^T$. Since $a_i^T b_j = 0$, $M v_b = 0$ and "
     "$M v_a = v_a$.", 2, 2),
    ((OLD,), "1b.i", "M = B B^T, the projection onto the b's.", 0, 0),
    ((OLD,), "1b", "q = beta (k_a + k_b) with beta >> 0, because then the softmax puts half of "
     "its weight on a and half on b.", 1, 1),
    ((OLD,), "1b", "q = beta(k_a + k_b). Both k_a and k_b get the same score beta and the "
     "others get 0, so the weights on a and b are about 1/2 each.", 1, 1),
    ((OLD,), "1e.i", "c_2 ≈ u_a. No, adding u_d to x_2 also raises the weight of x_1 = u_d + "
     "u_b, which brings u_d into c_2 as much as u_b, so c_2 can never be u_b alone.", 3, 3),
    ((OLD,), "1e.i", r"$c_2 \approx u_a$. It is not possible: any weight on $x_1$ also brings "
     r"$u_d$ into $c_2$ together with $u_b$.", 3, 3),
    ((OLD,), "2g.ii", "The synthesizer cannot capture the interactions between pairs of tokens, "
     "which standard self-attention computes with the dot product of queries and keys.", 2, 2),
    ((OLD,), "2g.ii", "Full self-attention costs O(n^2 d) in the length n; the Perceiver "
     "cross-attends to m latents, O(mnd), so it is linear in the input length.", 2, 2),
    ((OLD,), "2g.ii", "The synthesizer is faster to train because it has fewer parameters.", 0,
     0),
]
# The question ids that differ between the two rubrics.
_IDS = {(NEW, "1a"): "1a.i"}


@cache
def _rubric(slug: str) -> Rubric:
    return load_rubric(next(p for p in bundled_rubric_paths() if p.stem == slug)).rubric


@pytest.fixture(scope="module")
def resources() -> GradingResources:
    return GradingResources(options={})


def _check(results: list[ItemResult], low: float, high: float) -> None:
    points = sum((r.points for r in results), Decimal(0))
    where = f"{points} ({[r.status.value for r in results]}) " + " | ".join(
        r.feedback for r in results)
    assert results, "no written item was graded"
    if all(r.status is Status.GRADED for r in results):
        assert Decimal(str(low)) <= points <= Decimal(str(high)), where
    else:
        assert all(r.status is not Status.GRADER_ERROR for r in results), where


@pytest.mark.parametrize(
    ("slug", "question", "text", "low", "high"),
    [(slug, question, text, low, high) for slugs, question, text, low, high in CASES
     for slug in slugs],
)
def test_auto_graded_answers_stay_in_range(resources: GradingResources, slug: str,
                                           question: str, text: str, low: float,
                                           high: float) -> None:
    question = _IDS.get((slug, question), question)
    _check(grade_text(_rubric(slug), question, text, resources), low, high)


KEYS = ["k_j^T q", "q^T k_j", r"$k_j^\top q$", r"$q^\top k_j$", "k_j^T·q"]
BIGGER = ["is much larger than", ">>", "is much bigger than", "dominates", r"$\gg$"]
OTHERS = ["k_i^T q for all i != j", r"$k_i^\top q$ for every $i \neq j$",
          "the dot product with every other key", "the scores of all the other keys"]


@given(st.sampled_from(KEYS), st.sampled_from(BIGGER), st.sampled_from(OTHERS),
       st.sampled_from([NEW, OLD]))
@settings(max_examples=25, deadline=None)
def test_the_copying_condition_in_formula_form_gets_full_credit(
        key: str, bigger: str, others: str, slug: str) -> None:
    resources = _shared_resources()
    question = "1a.i" if slug == NEW else "1a"
    text = f"c copies v_j when {key} {bigger} {others}."
    results = grade_text(_rubric(slug), question, text, resources)
    assert sum(r.points for r in results) == 2 or any(
        r.status is Status.NEEDS_REVIEW for r in results), [r.feedback for r in results]


SUBJECTS = ["c", "the output", "it", "$c$"]
NEAR = ["is close to", "goes to", "approaches", "≈", r"\approx", "will be closer to"]
LARGE = ["When ||k_a|| is large", "If k_a is longer than usual", r"When $\|k_a\|$ is big"]
SMALL = ["when it is small", "if k_a is shorter", "when the norm of k_a is small"]


@given(st.sampled_from(LARGE), st.sampled_from(SMALL), st.sampled_from(SUBJECTS),
       st.sampled_from(NEAR), st.sampled_from([NEW, OLD]))
@settings(max_examples=25, deadline=None)
def test_both_sides_of_the_noisy_key_earn_at_least_two_points(
        large: str, small: str, subject: str, near: str, slug: str) -> None:
    resources = _shared_resources()
    if subject == "$c$" and near == r"\approx":
        near = r"$\approx$"
    text = f"{large}, {subject} {near} v_a; {small}, {subject} {near} v_b."
    results = grade_text(_rubric(slug), "1c.ii", text, resources)
    points = sum(r.points for r in results)
    assert points >= 2 or any(r.status is Status.NEEDS_REVIEW for r in results), (
        text, points, [r.feedback for r in results])


@cache
def _shared_resources() -> GradingResources:
    """One set of resources for the property tests (hypothesis runs the body many times)."""
    return GradingResources(options={})
