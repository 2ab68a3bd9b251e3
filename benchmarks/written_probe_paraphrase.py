"""A fifth probe of written answers: plain-word paraphrases of the transformer-basics items.

36 short answers written here (issue #29; none collected from students, none from CS231n
assignment 3) for the bundled transformer-basics rubric's written items: correct answers in
words of the student's own (a negated absence, "has no notion of order", "is blind to word
order"; a verb after its object, "derivatives get multiplied"; everyday verbs, "holds on to",
"never revisits") and fluent wrong ones (a right-sounding claim for a wrong reason, or the
opposite of the idea). Each answer's point range per item was set BEFORE it was first graded;
an item of the question the note does not address has the range 0-0. Batch P was used when
fixing (grader version 18); batch H is HELD OUT: never fix against it.

First run (2026-11-29) on written grader version 17, before any fix: P 59 item grades, 52
within range, 15 to review, 1 auto-graded out of range, 0 confidently wrong; H 58, 54, 9, 2, 0.

Reported per batch as `written_probe.py` reports: item grades, within range, sent to review,
auto-graded out of range and confidently wrong (auto-graded at confidence >= 0.8 and out of
range), with each such grade.

Usage: python benchmarks/written_probe_paraphrase.py [--no-write]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.report import write_section
from benchmarks.written_probe import TB, Note, run, tables
from graders.written import GRADER

NOTES: list[Note] = [
    # ---- batch P (used when fixing) ----
    ('P', TB, 'A3', 'self-attention is blind to word order, so we have to add position info',
     {'a3.order': (3, 3)}),
    ('P', TB, 'A3', "without positional encodings the transformer can't tell 'the cat sat' "
     "from 'sat the cat'", {'a3.order': (2, 3)}),
    ('P', TB, 'A6', 'beam search holds on to the top k partial outputs at every step and '
     'extends each of them', {'a6.beam': (3, 4)}),
    ('P', TB, 'A6', 'greedy picks the highest-probability word each step, but an early '
     'good-looking choice can lead to a worse sentence overall', {'a6.greedy': (4, 4)}),
    ('P', TB, 'A2', "the gradient is a product of per-layer derivatives, and sigmoid's are at "
     'most 1/4, so it goes to zero exponentially with depth',
     {'a2.vanishing': (3, 3), 'a2.relu': (0, 1)}),
    ('P', TB, 'A2', 'derivatives get multiplied layer after layer; when each is below one the '
     'product shrinks toward zero', {'a2.vanishing': (3, 3)}),
    ('P', TB, 'A1', "a single perceptron draws only one straight line, and XOR's points can't "
     'be split by any one line', {'a1.nonseparable': (3, 4), 'a1.linear_boundary': (2, 3)}),
    ('P', TB, 'A1', 'adding a hidden layer makes it work because the network has more '
     'parameters', {'a1.hidden_nonlinear': (1, 2)}),
    ('P', TB, 'A4', "dividing by sqrt(d_k) keeps the dot products from growing with the "
     "dimension, so the softmax doesn't become one-hot and gradients don't vanish",
     {'a4.scaling': (3, 4)}),
    ('P', TB, 'A4', 'the query is what a word is searching for, the key is what it advertises, '
     'the value is the information it hands over', {'a4.roles': (3, 3)}),
    ('P', TB, 'A5', 'several heads let the model look at different kinds of relationships at '
     'once', {'a5.why_heads': (4, 5)}),
    ('P', TB, 'A3', 'sinusoidal: no learned weights, a fixed formula, so it works on sequences '
     'longer than those seen in training', {'a3.sinusoidal': (2, 2)}),
    ('P', TB, 'A3', "learned position embeddings are just a trained lookup table, so they "
     "can't handle positions beyond the max length", {'a3.learned': (2, 2)}),
    ('P', TB, 'A6', 'beam search is basically greedy with extra steps; it still keeps just one '
     'sequence', {'a6.beam': (0, 0)}),
    ('P', TB, 'A3', 'attention already knows the order of the tokens because it processes them '
     'left to right', {'a3.order': (0, 0)}),
    ('P', TB, 'A2', 'gradients vanish because deep networks overfit', {'a2.vanishing': (0, 0)}),
    ('P', TB, 'A4', 'the diagonal shows how much each token attends to itself, since its query '
     'and key come from the same embedding', {'a4.diagonal': (3, 3)}),
    ('P', TB, 'A3', 'RoPE rotates queries and keys by an angle that grows with position, so '
     'their dot product only depends on how far apart they are', {'a3.rope': (3, 3)}),
    # ---- batch H (held out: never fix against it) ----
    ('H', TB, 'A3', "attention doesn't care where a token sits in the sentence; shuffling the "
     'input just shuffles the output', {'a3.order': (3, 3)}),
    ('H', TB, 'A3', 'a transformer has no built-in idea of word order', {'a3.order': (2, 3)}),
    ('H', TB, 'A6', 'beam search tracks the k most likely partial translations and ranks them '
     'by summed log prob', {'a6.beam': (4, 4)}),
    ('H', TB, 'A6', 'beam search keeps just the best candidate at every step',
     {'a6.beam': (0, 0)}),
    ('H', TB, 'A6', 'greedy never revisits a choice, so one locally good word can rule out the '
     'best full sentence', {'a6.greedy': (3, 4)}),
    ('H', TB, 'A2', 'backprop chains derivatives together by multiplying them, and with '
     'sigmoid each is <= 0.25, so early layers get almost nothing',
     {'a2.vanishing': (3, 3), 'a2.relu': (0, 1)}),
    ('H', TB, 'A2', "each layer's small derivative gets multiplied in, so the gradient decays "
     'exponentially', {'a2.vanishing': (3, 3)}),
    ('H', TB, 'A2', 'gradients vanish because the weights are initialised too large',
     {'a2.vanishing': (0, 0)}),
    ('H', TB, 'A1', 'an MLP works because a hidden layer with a nonlinear activation can '
     'combine two linear cuts into one region', {'a1.hidden_nonlinear': (3, 3)}),
    ('H', TB, 'A1', 'hidden layers fix XOR because more layers always mean more capacity',
     {'a1.hidden_nonlinear': (1, 2)}),
    ('H', TB, 'A4', 'scaling by the root of d_k stops the softmax from saturating when the '
     'vectors are long', {'a4.scaling': (2, 4)}),
    ('H', TB, 'A4', 'the key is what the query gets compared with, the value is what gets '
     'returned', {'a4.roles': (2, 3)}),
    ('H', TB, 'A5', 'multiple heads give several different attention patterns in parallel '
     'instead of one averaged one', {'a5.why_heads': (4, 5)}),
    ('H', TB, 'A3', 'the sinusoidal encoding has no trainable parameters and can be computed '
     'for any position', {'a3.sinusoidal': (2, 2)}),
    ('H', TB, 'A3', 'learned embeddings only exist for positions up to the training length',
     {'a3.learned': (1, 2)}),
    ('H', TB, 'A3', 'RoPE adds a learned vector to every token', {'a3.rope': (0, 0)}),
    ('H', TB, 'A4', 'the diagonal is always the largest because softmax normalises the rows',
     {'a4.diagonal': (0, 1)}),
    ('H', TB, 'A6', 'greedy is suboptimal because it takes too long to run',
     {'a6.greedy': (0, 0)}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="print, do not edit the docs")
    args = parser.parse_args()
    stats, wrong, _ = run(NOTES)
    lines = ["## Written answers: a fifth probe, paraphrases of transformer-basics "
             "(ranges set before grading)", "",
             f"{len(NOTES)} notes written here for the transformer-basics rubric's written "
             "items; batch P was used when fixing, batch H is held out. Written grader version "
             f"{GRADER.version}. First run, on version 17 before any fix: P 52 of 59 within "
             "range, 15 to review, 1 auto-graded out of range, 0 confidently wrong; H 54 of 58, "
             "9, 2, 0.", "",
             *tables(stats, wrong)]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("written_probe_paraphrase", body)


if __name__ == "__main__":
    main()
