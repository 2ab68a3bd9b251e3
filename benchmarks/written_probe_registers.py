"""A sixth probe of written answers: transformer-basics in registers not probed before.

40 short answers written here (issue #29; none collected from students, none from CS231n
assignment 3) for the bundled transformer-basics rubric's written items, in five registers the
fourth and fifth probes did not cover: terse bullet notes (dashes, arrows, symbols); a mostly
right answer with one wrong claim inside it; an answer that quotes the question back (with an
answer after it, or with nothing but the question's words); a long rambling answer whose key
idea is only in its last sentence; British spellings and typos. Each answer's point range per
item was set BEFORE it was first graded; an item of the question the note does not address has
the range 0-0. Batch P was used when fixing (grader version 19); batch H is HELD OUT: never
fix against it.

First run (2026-11-29) on written grader version 18, before any fix: P 63 item grades, 58
within range, 14 to review, 2 auto-graded out of range, 1 confidently wrong; H 61, 54, 21, 2,
2. Fixed from P: a phrasing naming a number matched by meaning with a stretch naming another
(tests/graders/written/test_quantities.py).

Reported per batch as `written_probe.py` reports: item grades, within range, sent to review,
auto-graded out of range and confidently wrong (auto-graded at confidence >= 0.8 and out of
range), with each such grade.

Usage: python benchmarks/written_probe_registers.py [--no-write]
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
    # terse bullet notes
    ('P', TB, 'A1', '- single perceptron = linear boundary (one line)\n- XOR not linearly '
     'separable\n- MLP: hidden layer + nonlinearity -> several lines combined',
     {'a1.nonseparable': (3, 4), 'a1.linear_boundary': (2, 3), 'a1.hidden_nonlinear': (2, 3)}),
    ('P', TB, 'A2', "- linear of linear = linear: W2(W1x) = (W2W1)x\n- vanishing: chain rule "
     "multiplies per-layer derivs, each < 1 -> exp. shrink\n- relu' = 1 for x>0, sigmoid' <= "
     '0.25', {'a2.collapse': (3, 4), 'a2.vanishing': (3, 3), 'a2.relu': (3, 3)}),
    ('P', TB, 'A4', '- q.k variance grows w/ d_k\n- big logits -> softmax saturates -> tiny '
     'grads\n- /sqrt(d_k) -> var ~1', {'a4.scaling': (3, 4)}),
    ('P', TB, 'A3', 'RoPE: rotate q,k by angle prop. to position -> q.k depends only on '
     'relative offset', {'a3.rope': (3, 3)}),
    # a wrong claim inside a mostly right answer
    ('P', TB, 'A3', 'Sinusoidal encodings are a fixed function of the position and work for '
     'any length; they are learned during training along with the embeddings.',
     {'a3.sinusoidal': (0, 1)}),
    ('P', TB, 'A6', 'Beam search keeps the k most probable partial sequences at each step and '
     'extends each of them, which guarantees it finds the globally best sequence.',
     {'a6.beam': (2, 3)}),
    ('P', TB, 'A2', "ReLU helps because its derivative is 1 for positive inputs, while the "
     "sigmoid's derivative can be as large as 4, so it explodes.", {'a2.relu': (1, 2)}),
    ('P', TB, 'A4', 'The query is what a token is looking for, the value is the content it '
     'passes on, and the key is the output of the attention layer.', {'a4.roles': (1, 2)}),
    ('P', TB, 'A1', "XOR isn't linearly separable, so a single perceptron, whose boundary is "
     'one straight line, cannot do it; adding more hidden layers with linear activations '
     'solves this.',
     {'a1.nonseparable': (3, 4), 'a1.linear_boundary': (2, 3), 'a1.hidden_nonlinear': (0, 1)}),
    # the question quoted back
    ('P', TB, 'A3', 'Why does a transformer need positional information? It needs positional '
     'information because self-attention on its own treats the input as a set and ignores the '
     'order of the tokens.', {'a3.order': (3, 3)}),
    ('P', TB, 'A6', 'Greedy decoding is suboptimal because it is greedy, so it is suboptimal.',
     {}),
    ('P', TB, 'A5', 'Why split attention into several heads? Splitting attention into several '
     'heads lets each head attend to different positions or relationships in parallel.',
     {'a5.why_heads': (4, 5)}),
    ('P', TB, 'A4', 'What are the roles of queries, keys and values? Queries, keys and values '
     'have roles in attention: they are the queries, the keys and the values.', {}),
    # rambling, the key idea in the last sentence
    ('P', TB, 'A1', 'So the perceptron thing is something we covered in week two and honestly '
     'I found the whole XOR story a bit confusing at first, because you would think a neuron '
     'can learn anything if you train it long enough, and the lecture notes go through the '
     'truth table in detail. Anyway, what makes the multi-layer version work is that the '
     "hidden layer's nonlinear activations let it combine two linear cuts into one non-linear "
     'region.',
     {'a1.nonseparable': (0, 1), 'a1.linear_boundary': (0, 1), 'a1.hidden_nonlinear': (3, 3)}),
    ('P', TB, 'A2', 'Deep networks have many layers and training them was hard for a long '
     'time, people used pre-training and all sorts of tricks, and the learning rate matters '
     'too, and initialisation, there is a whole literature. The actual reason gradients vanish '
     'is that backprop multiplies one derivative per layer, and when those factors are below '
     'one the product shrinks exponentially with depth.', {'a2.vanishing': (3, 3)}),
    ('P', TB, 'A4', 'The attention map is a matrix of weights, each row sums to one after the '
     'softmax, rows are queries and columns are keys, and you can plot it as a heatmap to see '
     "what attends to what, which is nice for debugging. On the diagonal you see each token's "
     'query scored against its own key, and those are usually big because both come from the '
     'same embedding.', {'a4.diagonal': (3, 3)}),
    # British spellings and typos
    ('P', TB, 'A2', 'Stacking linear layers without a non-linearity just gives another linear '
     'map, since the product of the weight matrices is itself a matrix - the network cant '
     'model anything a single layer couldnt.', {'a2.collapse': (3, 4)}),
    ('P', TB, 'A3', 'Learnt absolute positional embedings train one vector per positon, so '
     'they cant generalise past the maximum sequence length seen in trainig.',
     {'a3.learned': (2, 2)}),
    ('P', TB, 'A4', 'Without the scaling the dot products grow with d_k, which pushes the '
     'softmax into saturation where its gradients are tiny; dividing by sqrt(d_k) normalises '
     'the variance back to about one.', {'a4.scaling': (3, 4)}),
    ('P', TB, 'A6', 'greedy decodng picks the most probale token at each step, but a localy '
     'best choice can miss the sequnce with the highest overall probabilty',
     {'a6.greedy': (4, 4)}),
    # ---- batch H (held out: never fix against it) ----
    ('H', TB, 'A6', 'beam search:\n- keep top-k partial seqs\n- expand each, rescore by total '
     'log-prob, keep k best\ngreedy = k=1', {'a6.beam': (4, 4), 'a6.greedy': (0, 2)}),
    ('H', TB, 'A5', '- d_model: embedding dim\n- h: # heads\n- d_head = d_model / h',
     {'a5.dims': (5, 5)}),
    ('H', TB, 'A2', "sigmoid' max 0.25 -> saturates; relu' = 1 (x>0) -> grad passes "
     'unchanged', {'a2.relu': (3, 3), 'a2.vanishing': (0, 1)}),
    ('H', TB, 'A4', 'diag = q_i.k_i (token vs own key), usually large -> attends to itself',
     {'a4.diagonal': (3, 3)}),
    ('H', TB, 'A3', 'Self-attention ignores word order by itself, which is why RNNs were '
     'replaced: the transformer reads tokens one at a time from left to right.',
     {'a3.order': (1, 2)}),
    ('H', TB, 'A4', 'We divide by sqrt(d_k) because the dot products grow with d_k and would '
     'saturate the softmax; it also makes the attention weights sum to one.',
     {'a4.scaling': (2, 3)}),
    ('H', TB, 'A6', 'Greedy takes the most probable token each step, which is fine because a '
     'locally best choice always leads to the best full sequence.', {'a6.greedy': (0, 1)}),
    ('H', TB, 'A5', 'Multiple heads let the model attend to different relations at once; each '
     'head processes a different part of the sentence.', {'a5.why_heads': (1, 3)}),
    ('H', TB, 'A3', 'Learned absolute embeddings train one vector per position and extrapolate '
     'well to any length.', {'a3.learned': (0, 1)}),
    ('H', TB, 'A1', 'Why can a single perceptron not compute XOR? A single perceptron cannot '
     'compute XOR because XOR cannot be computed by a single perceptron.', {}),
    ('H', TB, 'A2', 'Why is a stack of linear layers still linear? Because composing linear '
     'maps gives a linear map: W2(W1 x) is just (W2 W1) x.', {'a2.collapse': (3, 4)}),
    ('H', TB, 'A3', 'Compare sinusoidal, learned absolute and rotary position encodings: '
     'sinusoidal ones are a fixed formula with nothing to train, and they can be evaluated at '
     'any position, even beyond the training length.', {'a3.sinusoidal': (2, 2)}),
    ('H', TB, 'A6', 'How does beam search work? Beam search works by searching with a beam.',
     {}),
    ('H', TB, 'A6', 'Decoding is the part where the model actually produces text, and there '
     'are a lot of strategies, sampling with temperature, top-p, top-k sampling which is '
     'different from beam search even though both have a k, and people argue about which '
     'gives more natural text. Beam search specifically keeps the k best partial sequences at '
     'every step, extends each, and keeps the k with the highest total log-probability.',
     {'a6.beam': (4, 4)}),
    ('H', TB, 'A3', 'Position encodings have a long history; the original paper used sines '
     'and cosines, BERT learned them, and later models tried relative schemes like bias '
     'buckets or ALiBi, which just penalises distance. Rotary embeddings rotate the query and '
     'key vectors by a position-dependent angle, so their dot product depends only on the '
     'relative distance.', {'a3.rope': (3, 3), 'a3.learned': (0, 1)}),
    ('H', TB, 'A1', 'A perceptron computes a weighted sum and passes it through a step '
     'function, the weights are updated with the perceptron rule, and it provably converges '
     'when a solution exists, which was a big deal in the sixties. The problem with XOR is '
     'that no single straight line separates its positive points from its negative ones.',
     {'a1.nonseparable': (3, 4), 'a1.linear_boundary': (1, 3)}),
    ('H', TB, 'A4', 'the querry is what a token is lookng for, the key is what it offers to '
     'be matched agianst, and the value is the infomation it passes on',
     {'a4.roles': (3, 3)}),
    ('H', TB, 'A2', 'By the chain rule the gradient is a product of one derivative per layer; '
     'with sigmoids each factor is under 0.25, so the signal that reaches the early layers is '
     'minimised exponentially - it vanishes.', {'a2.vanishing': (3, 3), 'a2.relu': (0, 1)}),
    ('H', TB, 'A5', 'Several heads can specialise: each focusses on different positions or '
     'relations in parallel, rather than one head averaging them all.',
     {'a5.why_heads': (4, 5)}),
    ('H', TB, 'A6', "e.g. greedy picks 'the' (p=0.5) then 'cat' (0.3) -> joint .15, but beam "
     "keeps 'a' (0.4) then 'dog' (0.9) -> .36, so beam finds the beter sentence",
     {'a6.example': (2, 2), 'a6.greedy': (0, 3), 'a6.beam': (0, 2)}),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="print, do not edit the docs")
    args = parser.parse_args()
    stats, wrong, _ = run(NOTES)
    lines = ["## Written answers: a sixth probe, registers not probed before (ranges set "
             "before grading)", "",
             f"{len(NOTES)} notes written here for the transformer-basics rubric's written "
             "items: terse bullet notes, a wrong claim inside a mostly right answer, the "
             "question quoted back, rambling with the key idea last, British spellings and "
             "typos; batch P was used when fixing, batch H is held out. Written grader version "
             f"{GRADER.version}. First run, on version 18 before any fix: P 58 of 63 within "
             "range, 14 to review, 2 auto-graded out of range, 1 confidently wrong (a2.relu 3 of 3 "
             "at 0.95 for \"the sigmoid's derivative can be as large as 4\": a bound matched by "
             "meaning with another number, fixed in `graders/written/quantities.py`); H 54 of 61, "
             "21, 2, 2 (not fixed: held out).", "",
             *tables(stats, wrong)]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("written_probe_registers", body)


if __name__ == "__main__":
    main()
