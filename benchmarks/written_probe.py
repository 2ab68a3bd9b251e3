"""A fourth probe of written answers: notes a student might type, graded by the written grader.

54 short answers written here (issue #29; none collected from students, none from CS231n
assignment 3), for items of the bundled transformer-basics and cs224n-attention rubrics and of
another instructor's D2L rubric (../shared/real/new-homework/rubrics/d2l-pe-exercises.yaml, read
only when present: its notes are skipped, said so, otherwise). Each answer's point range per
item was set BEFORE it was first graded; an item of the question the note does not address has
the range 0-0. Batch P was used when fixing (grader version 17); batch H is HELD OUT: never
fix against it, or it stops measuring anything.

Reported per batch: item grades, within range, sent to review, auto-graded out of range, and
confidently wrong (auto-graded at confidence >= 0.8 and out of range), with each such grade.

First run (2026-11-29) on written grader version 16, before any fix: P 96 item grades, 75
within range, 27 to review, 7 auto-graded out of range, 4 confidently wrong; H 66, 52, 19, 5,
4. The classes fixed from P are in tests/graders/written/test_confident_wrong_reasons.py.
Version 18 (the paraphrase classes of tests/graders/written/test_paraphrase_words.py, which
the held-out notes below named by their class): P 77 within, 1 auto-graded out of range, 0
confidently wrong; H 52, 1, 0 (3 confidently wrong on version 17).

Usage: python benchmarks/written_probe.py [--no-write]
"""

from __future__ import annotations

import argparse
import sys
from decimal import Decimal
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.report import write_section
from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.results import ItemResult, Status
from graders.rubric import Rubric, bundled_rubric_paths, load_rubric
from graders.written import GRADER

D2L = (Path(__file__).resolve().parent.parent.parent / "shared" / "real" / "new-homework"
       / "rubrics" / "d2l-pe-exercises.yaml")
CONFIDENT = 0.8

# (batch, rubric, question, answer, {item: (low, high)}); unlisted items: (0, 0).
TB = "transformer-basics"
CS = "cs224n-attention"
D2 = "d2l"
NOTES: list[tuple[str, str, str, str, dict[str, tuple[int, int]]]] = [
    # ---- batch P (used when fixing) ----
    ('P', TB, 'A1',
     "XOR: (0,1),(1,0) vs (0,0),(1,1) can't be split by one line -> single perceptron = "
     'one line, fails. MLP: hidden layer w/ ReLU, 2 lines combined.',
     {'a1.nonseparable': (3, 4), 'a1.linear_boundary': (2, 3), 'a1.hidden_nonlinear': (3, 3)}),
    ('P', TB, 'A2',
     'a stack of linear layers is still linear because the weights are shared across '
     'layers',
     {'a2.collapse': (0, 1)}),
    ('P', TB, 'A2',
     'W2(W1x) = (W2W1)x, one matrix. grads vanish: chain rule mult many sigmoid derivs ≤ '
     "0.25 -> tiny. relu' = 1 for x>0",
     {'a2.collapse': (3, 4), 'a2.vanishing': (3, 3), 'a2.relu': (2, 3)}),
    ('P', TB, 'A2',
     'tiny derivs x many layers = vanishing',
     {'a2.vanishing': (2, 3)}),
    ('P', TB, 'A2',
     "linear ∘ linear = linear, so no matter how many layers it's one affine map. "
     'Gradients vanish because the learning rate is too small.',
     {'a2.collapse': (4, 4), 'a2.vanishing': (0, 0)}),
    ('P', TB, 'A2',
     'stacking linear layers = still a linear function since matrix mult is associative, '
     'W2W1 is one matrix. gradients vanish bc sigmoid saturates -> deriv ≈ 0, multiplied '
     'across layers -> 0. ReLU has grad 1 when active.',
     {'a2.collapse': (3, 4), 'a2.vanishing': (3, 3), 'a2.relu': (2, 3)}),
    ('P', TB, 'A2',
     'Linear layers stacked are linear because linear layers are linear.',
     {'a2.collapse': (0, 2)}),
    ('P', TB, 'A3',
     'attention is permutation-invariant, so w/o PE it sees a bag of words. sin PE: '
     'fixed, no params, works for any length in principle. learned: trained table, '
     'limited to max_len. RoPE rotates q,k by an angle ∝ position so the dot product '
     'depends on the relative offset.',
     {'a3.order': (2, 3), 'a3.sinusoidal': (1, 2), 'a3.learned': (2, 2), 'a3.rope': (2, 3)}),
    ('P', TB, 'A3',
     "e.g. 'dog bites man' vs 'man bites dog' would look identical to attention without "
     'positions.',
     {'a3.order': (1, 3)}),
    ('P', TB, 'A4',
     'the dot product q·k sums d_k terms so its variance is d_k; dividing by sqrt(d_k) '
     "brings the variance back to 1 so the softmax doesn't saturate and gradients don't "
     'vanish',
     {'a4.scaling': (4, 4)}),
    ('P', TB, 'A4',
     "Q = what I'm looking for, K = what I offer, V = what I hand over if matched. divide "
     'by √d_k since otherwise scores get big -> softmax peaky -> tiny grads. diagonal = '
     'how much each token attends to itself.',
     {'a4.roles': (3, 3), 'a4.scaling': (3, 4), 'a4.diagonal': (2, 3)}),
    ('P', TB, 'A4',
     'we scale so that the attention weights sum to 1',
     {'a4.scaling': (0, 0)}),
    ('P', TB, 'A5',
     'multiple heads = each head can learn a different kind of relation (syntax, coref), '
     'in parallel. d_model = embedding size, h = #heads, d_head = d_model/h.',
     {'a5.why_heads': (4, 5), 'a5.dims': (4, 5)}),
    ('P', TB, 'A5',
     'for example one head can track subject-verb agreement while another follows which '
     "noun 'it' refers to",
     {'a5.why_heads': (3, 5)}),
    ('P', TB, 'A6',
     'greedy = argmax each step, can miss the best overall sequence. beam keeps top-k '
     "partial seqs, extends each, keeps the k best by summed log prob. ex: 'the' 0.5 then "
     "'cat' 0.3 -> 0.15 vs 'a' 0.4 then 'dog' 0.9 -> 0.36, greedy outputs 'the cat'",
     {'a6.greedy': (4, 4), 'a6.beam': (4, 4), 'a6.example': (2, 2)}),
    ('P', TB, 'A6',
     'greedy: argmax at every step -> might not give the most likely sentence overall',
     {'a6.greedy': (3, 4), 'a6.example': (0, 0)}),
    ('P', TB, 'A6',
     'e.g. P(A)=0.6, P(B)=0.4 at step 1; after A the best next is 0.3, after B it is 0.9. '
     'greedy takes A (0.18), beam with k=2 finds B (0.36).',
     {'a6.greedy': (2, 4), 'a6.beam': (0, 3), 'a6.example': (2, 2)}),
    ('P', CS, '1a.i',
     'when q^T k_j >> q^T k_i for every i != j',
     {'1a.i': (2, 2)}),
    ('P', CS, '1a.ii',
     'c ≈ v_j',
     {'1a.ii': (1, 1)}),
    ('P', CS, '2a.i',
     'permuting the rows of X permutes Q, K and V the same way, and softmax(P Q K^T P^T) '
     'P V = P softmax(Q K^T) V',
     {'2a.i': (2, 3)}),
    ('P', CS, '2b.ii',
     'no - the sin/cos values at the different frequencies are never all equal for two '
     'different positions (within the longest period)',
     {'2b.ii': (1, 1)}),
    ('P', CS, '2a.ii',
     "it can't tell word order apart: 'a b c' and 'c b a' give the same outputs, just "
     'permuted',
     {'2a.ii': (1, 1)}),
    ('P', D2, 'Q1',
     'pos info only added at input -> after many layers it washes out. also O(n^2) '
     'attention per layer, and deep stacks -> vanishing grads w/o residuals',
     {'q1.position_dilution': (2, 2), 'q1.optimisation': (1, 1), 'q1.cost': (1, 1)}),
    ('P', D2, 'Q1',
     "deep stacks over-smooth: all the tokens' representations become similar",
     {'q1.collapse': (1, 1)}),
    ('P', D2, 'Q2',
     'pos_emb = nn.Parameter(torch.zeros(max_len, d)); x = x + self.pos_emb[:T]. '
     "Downside: can't extrapolate beyond max_len",
     {'q2.learned': (2, 2), 'q2.combine': (1, 1), 'q2.tradeoff': (1, 1)}),
    ('P', D2, 'Q2',
     'use nn.Embedding(max_len, d_model) over the position ids, add it to the token '
     'embeddings; it is learned by backprop',
     {'q2.learned': (2, 2), 'q2.combine': (1, 1)}),
    ('P', D2, 'Q1',
     'the position signal fades with depth since the encoding is injected only at the '
     'first layer',
     {'q1.position_dilution': (2, 2)}),
    ('P', D2, 'Q1',
     "the model can't handle sequences longer than the ones it saw in training",
     {'q1.length': (1, 1)}),
    ('P', TB, 'A1',
     'MLP fixes it because the hidden layer is linear and adds more weights',
     {'a1.hidden_nonlinear': (0, 1)}),
    ('P', D2, 'Q1',
     'positional information fades in deep layers because the positional encoding is '
     'learned',
     {'q1.position_dilution': (1, 2)}),
    ('P', TB, 'A4',
     'var(q·k) = d_k if the entries are ~N(0,1); /√d_k -> var 1, keeps the softmax out of '
     'the flat-gradient regime',
     {'a4.scaling': (3, 4)}),
    ('P', TB, 'A2',
     'backprop: dL/dx1 = product of ~50 terms each < 1 → ≈ 0',
     {'a2.vanishing': (2, 3)}),
    # ---- batch H (held out: never fixed against) ----
    ('H', TB, 'A2',
     'a stack of linear layers is linear because each layer uses the same activation',
     {'a2.collapse': (0, 1)}),
    ('H', TB, 'A2',
     'derivs < 1 multiplied through depth -> grads → 0 for early layers. relu slope 1 '
     'when on, sigmoid slope ≤ .25',
     {'a2.vanishing': (2, 3), 'a2.relu': (2, 3)}),
    ('H', TB, 'A6',
     'greedy = pick max prob token every step; locally optimal ≠ globally optimal',
     {'a6.greedy': (3, 4)}),
    ('H', TB, 'A6',
     'beam: keep b best hypotheses, score by cumulative log-prob, prune back to b each '
     'step',
     {'a6.beam': (3, 4)}),
    ('H', TB, 'A3',
     'without PE, attention is a set op - shuffling the words gives the same (permuted) '
     'result',
     {'a3.order': (2, 3)}),
    ('H', TB, 'A3',
     "'I ate the cake' vs 'the cake ate I' would get the same representation",
     {'a3.order': (1, 3)}),
    ('H', TB, 'A4',
     'scores scale like sqrt(d_k) in std, so dividing normalizes them to unit variance, '
     'which stops the softmax from saturating',
     {'a4.scaling': (3, 4)}),
    ('H', TB, 'A4',
     'divide by sqrt(d_k) to make it faster to compute',
     {'a4.scaling': (0, 0)}),
    ('H', TB, 'A1',
     "XOR's classes sit on the diagonals so no single line separates them; a perceptron's "
     'output is a threshold of w·x+b, i.e. one line. An MLP with nonlinear hidden units '
     'can carve two lines and combine them',
     {'a1.nonseparable': (3, 4), 'a1.linear_boundary': (2, 3), 'a1.hidden_nonlinear': (3, 3)}),
    ('H', TB, 'A1',
     "a hidden layer fixes it because it's nonlinear since it has more neurons",
     {'a1.hidden_nonlinear': (1, 2)}),
    ('H', TB, 'A5',
     'heads = different subspaces attend to different things at the same time; d_head = '
     '768/12 = 64 = d_model/h',
     {'a5.why_heads': (4, 5), 'a5.dims': (3, 5)}),
    ('H', TB, 'A2',
     'W3W2W1 = W, so 3 layers = 1 layer',
     {'a2.collapse': (3, 4)}),
    ('H', CS, '1a.i',
     "if the query is nearly parallel to k_j and k_j's norm is large, that score "
     'dominates the softmax',
     {'1a.i': (1, 2)}),
    ('H', CS, '2b.i',
     'yes - adding p_i makes identical words at different positions get different '
     'vectors, so order matters',
     {'2b.i': (1, 1)}),
    ('H', CS, '1a.ii',
     'c is basically just the value vector at j',
     {'1a.ii': (1, 1)}),
    ('H', D2, 'Q1',
     'each layer mixes tokens, so positional info gets smeared out the deeper you go; '
     'plus memory grows with n^2',
     {'q1.position_dilution': (2, 2), 'q1.cost': (1, 1)}),
    ('H', D2, 'Q2',
     "a trainable table pe[max_len, d] (nn.Parameter) added to the embeddings; can't go "
     'past max_len at test time',
     {'q2.learned': (2, 2), 'q2.combine': (1, 1), 'q2.tradeoff': (1, 1)}),
    ('H', D2, 'Q1',
     'attention weights become uniform in the deep layers so every token looks the same',
     {'q1.collapse': (1, 1)}),
    ('H', TB, 'A6',
     "greedy decoding always gives the most likely sentence, so beam search isn't needed",
     {'a6.greedy': (0, 0), 'a6.beam': (0, 0)}),
    ('H', TB, 'A2',
     "relu doesn't squash positive values so its gradient there is 1; sigmoid flattens "
     'out at both ends',
     {'a2.relu': (2, 3)}),
    ('H', TB, 'A3',
     'RoPE multiplies q and k by rotation matrices whose angle depends on the position, '
     'so q_m·k_n only depends on m−n',
     {'a3.rope': (2, 3)}),
    ('H', TB, 'A6',
     'greedy commits to one token at a time and never backtracks',
     {'a6.greedy': (3, 4)}),
]


def _grade(rubric: Rubric, question_id: str, text: str,
           resources: GradingResources) -> list[ItemResult]:
    question = next(q for q in rubric.questions if q.id == question_id)
    answer = LocatedAnswer(question_id, text, start=0, end=len(text))
    submission = ParsedSubmission(text=text, format="text", answers={question_id: answer})
    context = GradingContext(rubric=rubric, question=question, submission=submission,
                             resources=resources)
    items = [i for i in question.items if i.grader == "written"]
    return GRADER.grade_items(items, answer, context)


Note = tuple[str, str, str, str, dict[str, tuple[int, int]]]


def run(notes: list[Note] | None = None, *, report_auto: bool = False
        ) -> tuple[dict[str, list[int]], list[str], int]:
    """Grade `notes` (by default this probe's) and count, per batch, the item grades, those
    within range, to review, auto-graded out of range and confidently wrong; the lines list the
    confidently wrong grades (every auto-graded out-of-range one with `report_auto`)."""
    rubrics = {p.stem: load_rubric(p).rubric for p in bundled_rubric_paths()
               if p.stem in (TB, CS)}
    if D2L.exists():
        rubrics[D2] = load_rubric(D2L).rubric
    resources = GradingResources(options={})
    stats: dict[str, list[int]] = {}
    wrong: list[str] = []
    skipped = 0
    for batch, slug, question, text, ranges in NOTES if notes is None else notes:
        if slug not in rubrics:
            skipped += 1
            continue
        for result in _grade(rubrics[slug], question, text, resources):
            low, high = ranges.get(result.item_id, (0, 0))
            within = Decimal(low) <= result.points <= Decimal(high)
            review = result.status is Status.NEEDS_REVIEW
            confident = not within and not review and result.confidence >= CONFIDENT
            row = stats.setdefault(batch, [0, 0, 0, 0, 0])
            for index, flag in enumerate((True, within, review, not within and not review,
                                          confident)):
                row[index] += flag
            if confident or (report_auto and not within and not review):
                wrong.append(f"| {batch} | {result.item_id} | {result.points:g} of "
                             f"{result.max_points:g} at {result.confidence:.2f} | {low}-{high} "
                             f"| {' '.join(text[:70].split())} |")
    return stats, wrong, skipped


def tables(stats: dict[str, list[int]], wrong: list[str]) -> list[str]:
    """A probe's figures per batch, then its out-of-range grades (Markdown table lines)."""
    lines = ["| batch | item grades | within range | to review | auto-graded out of range "
             "| confidently wrong (>= 0.8) |", "|---|---|---|---|---|---|"]
    lines += [f"| {b} | {r[0]} | {r[1]} | {r[2]} | {r[3]} | {r[4]} |"
              for b, r in sorted(stats.items())]
    if wrong:
        lines += ["", "| batch | item | graded | range | answer |", "|---|---|---|---|---|", *wrong]
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="print, do not edit the docs")
    args = parser.parse_args()
    stats, wrong, skipped = run()
    lines = ["## Written answers: a fourth probe of typed notes (ranges set before grading)", "",
             f"{len(NOTES)} notes written here for transformer-basics, cs224n-attention and the "
             "D2L exercises' rubric; batch P was used when fixing, batch H is held out. "
             f"Written grader version {GRADER.version}."
             + (f" {skipped} D2L notes skipped: {D2L} is absent." if skipped else ""), "",
             *tables(stats, wrong)]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("written_probe", body)


if __name__ == "__main__":
    main()
