"""A seventh probe of written answers: six classes of real writing, every written item.

Short answers written here (issue #29; none collected from students, none from CS231n
assignment 3) for every written item of the bundled transformer-basics and cs224n-attention
rubrics, in six classes a careful TA meets: (a) correct paraphrases in plain words, none of the
reference's vocabulary; (b) correct answers stated by negation or counterfactual; (c) fluent,
on-topic but WRONG answers (the right words, the wrong claim: reversed cause, swapped roles,
wrong quantity); (d) one right and one wrong element; (e) very short correct answers; (f) bullet
lists and numbered sub-parts. Each answer's point range per item was set BEFORE it was first
graded; an item of the question the note does not address has the range 0-0. Batch P was used
when fixing; batch H is HELD OUT: never fix against it.

First run (2026-11-29) on written grader version 20, before any fix (item grades, within
range, to review, auto-graded out of range, confidently wrong): P 204, 163, 69, 10, 7; H 192,
153, 66, 10, 5. By class, auto-graded out of range P/H: (a) plain paraphrase 8/7, (b) negation
1/2, (c) fluent wrong 0/1, (d) mixed 0/0, (e) short 1/0, (f) bullets 0/0; most were a correct
plain-words answer graded 0 at 0.90 with nothing in it recognised. Fixed from P (version 21,
graders/written/unexplained.py, tests/graders/written/test_unread_words.py): such an answer's
zeros go to review, and so does a grade below full credit beside a clause of a credited
sentence that none of the credit rests on; a sentence after another subject's word is not read
for an item whose subject the answer never names. After: P 204, 163, 106, 2, 1; H 192, 153,
97, 2, 1 (within range unchanged: the fixes are honest statuses, not points).

Reported per batch and per class: item grades, within range, sent to review, auto-graded
(status graded) out of range, and confidently wrong (auto-graded at confidence >= 0.8 and out
of range), with each auto-graded out-of-range grade.

Usage: python benchmarks/written_probe_classes.py [--no-write]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.report import write_section
from benchmarks.written_probe import CS, TB, Note, run
from graders.written import GRADER

CLASSES = {"a": "plain paraphrase", "b": "negation / counterfactual", "c": "fluent wrong",
           "d": "one right, one wrong", "e": "very short", "f": "bullets / sub-parts"}

# (batch, class, rubric, question, answer, {item: (low, high)}); unlisted items: (0, 0).
ClassNote = tuple[str, str, str, str, str, dict[str, tuple[int, int]]]
NOTES: list[ClassNote] = [
    # ---- A1: a1.nonseparable (4), a1.linear_boundary (3), a1.hidden_nonlinear (3) ----
    ('P', 'a', TB, 'A1', 'A lone perceptron just checks which side of one flat cut through the '
     'input space a point lies on. The XOR points sit on opposite corners, so whatever cut you '
     'choose, some point ends up on the wrong side.',
     {'a1.nonseparable': (3, 4), 'a1.linear_boundary': (2, 3)}),
    ('H', 'a', TB, 'A1', 'The output of a perceptron flips at a single straight border in the '
     'plane, and for XOR the two true corners and the two false corners are diagonal, so no such '
     'border puts them on different sides.',
     {'a1.nonseparable': (3, 4), 'a1.linear_boundary': (3, 3)}),
    ('P', 'a', TB, 'A1', 'Put a middle row of units between input and output, each squashing its '
     'sum through something bent like tanh; then two cuts can be glued together into a region '
     'shaped like a band.', {'a1.hidden_nonlinear': (3, 3)}),
    ('H', 'a', TB, 'A1', 'An in-between set of neurons with a bent response (like a ReLU) lets '
     'the last neuron combine two straight cuts into a stripe.',
     {'a1.hidden_nonlinear': (3, 3), 'a1.linear_boundary': (0, 1)}),
    ('P', 'b', TB, 'A1', "If XOR's classes could be split by one line a perceptron would manage "
     "it, but they can't, and a perceptron has nothing beyond one line to offer.",
     {'a1.nonseparable': (3, 4), 'a1.linear_boundary': (2, 3)}),
    ('H', 'b', TB, 'A1', 'Without a nonlinear hidden layer in between, no amount of stacking '
     'helps: the layers would merge into one and still draw a single line.',
     {'a1.hidden_nonlinear': (2, 3), 'a1.linear_boundary': (0, 2), 'a1.nonseparable': (0, 1)}),
    ('P', 'c', TB, 'A1', 'A perceptron fails on XOR because it has no hidden bias term; an MLP '
     'fixes it because the extra layers give it many more parameters to fit the data.',
     {'a1.hidden_nonlinear': (0, 1)}),
    ('H', 'c', TB, 'A1', 'The MLP works because its hidden layer uses linear activations, which '
     'lets it add up several lines into a curve.', {'a1.hidden_nonlinear': (0, 1)}),
    ('P', 'c', TB, 'A1', "XOR is linearly separable, but the perceptron's learning rule is too "
     'slow to find the line.', {'a1.linear_boundary': (0, 1)}),
    ('H', 'c', TB, 'A1', 'A single perceptron can draw any curved boundary, it just cannot learn '
     "XOR's because XOR has too few data points.", {}),
    ('P', 'd', TB, 'A1', "XOR's classes can't be separated by one line. An MLP fixes it by "
     'adding more output neurons, one per class.',
     {'a1.nonseparable': (3, 4), 'a1.linear_boundary': (0, 2), 'a1.hidden_nonlinear': (0, 1)}),
    ('H', 'd', TB, 'A1', 'A hidden layer with a nonlinear activation solves it, because XOR is '
     'linearly separable once you have enough data.', {'a1.hidden_nonlinear': (2, 3)}),
    ('P', 'e', TB, 'A1', 'not linearly separable; perceptron = one line; MLP hidden layer + '
     'nonlinearity',
     {'a1.nonseparable': (3, 4), 'a1.linear_boundary': (2, 3), 'a1.hidden_nonlinear': (3, 3)}),
    ('H', 'e', TB, 'A1', "one line can't split XOR",
     {'a1.nonseparable': (3, 4), 'a1.linear_boundary': (0, 2)}),
    ('P', 'f', TB, 'A1', '1. XOR: the 1s sit on opposite corners, so no single line separates '
     'them\n2. a perceptron is a linear threshold unit, boundary = hyperplane\n3. MLP: hidden '
     'layer + ReLU combines two boundaries',
     {'a1.nonseparable': (3, 4), 'a1.linear_boundary': (3, 3), 'a1.hidden_nonlinear': (3, 3)}),
    ('H', 'f', TB, 'A1', '- perceptron: weighted sum then threshold -> only a straight-line '
     'boundary\n- XOR needs two lines\n- fix: a hidden layer of nonlinear units',
     {'a1.nonseparable': (3, 4), 'a1.linear_boundary': (3, 3), 'a1.hidden_nonlinear': (2, 3)}),
    # ---- A2: a2.collapse (4), a2.vanishing (3), a2.relu (3) ----
    ('P', 'a', TB, 'A2', 'Multiplying the matrices of the layers together gives one matrix, so '
     'however many layers you pile up, the whole thing does what a single layer would.',
     {'a2.collapse': (4, 4)}),
    ('H', 'a', TB, 'A2', 'Putting one straight-line mapping after another never bends anything: '
     'the result is again a straight-line mapping, so depth buys nothing.',
     {'a2.collapse': (3, 4)}),
    ('P', 'a', TB, 'A2', 'During backprop each layer scales the error signal by its own slope, '
     'and these slopes are small numbers like 0.2, so after twenty layers almost nothing is left '
     'for the first ones.', {'a2.vanishing': (3, 3)}),
    ('H', 'a', TB, 'A2', 'The signal going backwards gets scaled again at each layer by a factor '
     'under one, so by the time it reaches the bottom layers it has shrunk to nearly nothing.',
     {'a2.vanishing': (2, 3)}),
    ('P', 'a', TB, 'A2', "For positive inputs ReLU's slope is exactly one so the signal passes "
     "back untouched, while the sigmoid's slope never goes above a quarter and is almost flat at "
     'both ends.', {'a2.relu': (3, 3), 'a2.vanishing': (0, 1)}),
    ('H', 'a', TB, 'A2', 'The ReLU passes the backward signal through unchanged wherever the '
     'unit is on, whereas a sigmoid squashes it to a quarter or less, and to nearly zero once '
     'its input is big.', {'a2.relu': (3, 3), 'a2.vanishing': (0, 1)}),
    ('P', 'b', TB, 'A2', 'If the per-layer derivatives were all above one the gradient would '
     'blow up; because with sigmoid they are all below one, the product of them over many '
     'layers dies out.', {'a2.vanishing': (3, 3), 'a2.relu': (0, 1)}),
    ('H', 'b', TB, 'A2', "ReLU doesn't squash its gradient for positive inputs the way the "
     "sigmoid does, since its slope there isn't less than one.", {'a2.relu': (2, 3)}),
    ('P', 'b', TB, 'A2', 'There is no way for stacked linear layers to do more than one layer '
     'can: without anything nonlinear between them, their product is just another matrix.',
     {'a2.collapse': (4, 4)}),
    ('P', 'c', TB, 'A2', 'Gradients vanish because the chain rule adds up the derivatives of all '
     'layers, and the sum of many small numbers is small.', {'a2.vanishing': (0, 1)}),
    ('H', 'c', TB, 'A2', "Gradients vanish in deep networks because each layer's derivative is "
     'larger than one, so multiplying them over many layers makes the gradient tiny.',
     {'a2.vanishing': (0, 1)}),
    ('P', 'c', TB, 'A2', 'ReLU helps because its derivative is always 0.25, smaller than '
     "sigmoid's, so the updates stay small and stable.", {}),
    ('H', 'c', TB, 'A2', "Sigmoid's derivative is exactly one for positive inputs, while ReLU "
     'saturates, so ReLU is faster to compute.', {}),
    ('P', 'c', TB, 'A2', 'A stack of linear layers becomes nonlinear once it is deep enough, '
     'since each layer adds a new bend.', {}),
    ('H', 'c', TB, 'A2', 'Stacked linear layers stay linear because every layer uses the same '
     'weight matrix.', {'a2.collapse': (0, 1)}),
    ('P', 'd', TB, 'A2', "W2(W1x) = (W2W1)x so it's one linear map. Gradients vanish because "
     'the learning rate is too small.', {'a2.collapse': (4, 4)}),
    ('H', 'd', TB, 'A2', 'The gradient is a product of one derivative per layer, each below one, '
     'so it shrinks; ReLU fixes this because its derivative is at most 0.25.',
     {'a2.vanishing': (3, 3), 'a2.relu': (0, 1)}),
    ('P', 'e', TB, 'A2', 'tiny derivs multiplied layer after layer -> ~0',
     {'a2.vanishing': (2, 3)}),
    ('H', 'e', TB, 'A2', "ReLU' = 1 when x > 0, sigmoid' <= 1/4",
     {'a2.relu': (3, 3), 'a2.vanishing': (0, 1)}),
    ('H', 'e', TB, 'A2', 'linear of linear is linear', {'a2.collapse': (3, 4)}),
    ('P', 'f', TB, 'A2', "(a) W2(W1 x + b1) + b2 = W' x + b', a single linear layer\n(b) chain "
     "rule: product of per-layer derivatives; sigmoid's each <= 0.25 -> product decays "
     'exponentially\n(c) ReLU: derivative 1 on active units, so no shrinking',
     {'a2.collapse': (4, 4), 'a2.vanishing': (3, 3), 'a2.relu': (2, 3)}),
    ('H', 'f', TB, 'A2', '1) stacking linear layers: the weights just multiply into one matrix\n'
     '2) vanishing: going back through the layers the gradient gets multiplied by a small factor '
     "each time\n3) relu doesn't saturate for x>0 (slope 1) unlike sigmoid",
     {'a2.collapse': (3, 4), 'a2.vanishing': (2, 3), 'a2.relu': (3, 3)}),
    # ---- A3: a3.order (3), a3.sinusoidal (2), a3.learned (2), a3.rope (3) ----
    ('P', 'a', TB, 'A3', "Attention looks at all tokens as a bag; swap two words and each word's "
     'output is the same, just in a new slot, so the model needs to be told where each word '
     'sits.', {'a3.order': (3, 3)}),
    ('H', 'a', TB, 'A3', "On its own, attention treats 'dog bites man' and 'man bites dog' "
     'alike, since it only compares word contents with each other.', {'a3.order': (2, 3)}),
    ('P', 'a', TB, 'A3', 'The sine/cosine scheme is computed from a formula with nothing '
     'trained, so you can evaluate it at position 5000 even if training only saw 512.',
     {'a3.sinusoidal': (2, 2)}),
    ('H', 'a', TB, 'A3', 'The wave-based encoding of the original paper is just a formula of the '
     'index with nothing to train, so it gives a vector for positions longer than any training '
     'sentence.', {'a3.sinusoidal': (2, 2)}),
    ('P', 'a', TB, 'A3', 'Learned absolute: a lookup table with a trained row per slot, so there '
     'is simply no row for slot 600 if training stopped at 512.', {'a3.learned': (2, 2)}),
    ('H', 'a', TB, 'A3', 'The trained position table only has entries up to the longest sequence '
     'used when fitting it, so longer inputs have nothing to look up.', {'a3.learned': (2, 2)}),
    ('P', 'a', TB, 'A3', 'RoPE turns each query and key by an angle set by its position, so the '
     'score between two tokens only sees how far apart they are.', {'a3.rope': (3, 3)}),
    ('H', 'a', TB, 'A3', 'Rotary encoding spins the q and k vectors through an angle '
     'proportional to their index; when you take their dot product only the gap between the '
     'indices survives.', {'a3.rope': (3, 3)}),
    ('P', 'b', TB, 'A3', "The sinusoidal encoding has no trainable weights and isn't tied to a "
     "maximum length, so it doesn't break on longer inputs.", {'a3.sinusoidal': (2, 2)}),
    ('H', 'b', TB, 'A3', 'Without positional encodings, shuffling the words would not change '
     'what attention computes for each word, only where it ends up.', {'a3.order': (3, 3)}),
    ('P', 'b', TB, 'A3', "Learned position embeddings can't extrapolate: positions past the "
     'training length never got a trained vector.', {'a3.learned': (2, 2)}),
    ('H', 'b', TB, 'A3', "RoPE doesn't add anything to the embeddings; it rotates q and k so "
     "that their product can't depend on absolute position, only on the offset.",
     {'a3.rope': (3, 3)}),
    ('P', 'c', TB, 'A3', 'Sinusoidal encodings are trained vectors that only cover positions '
     'seen during training.', {'a3.learned': (0, 1)}),
    ('H', 'c', TB, 'A3', 'Learned absolute embeddings have no parameters and so work for any '
     'sequence length.', {}),
    ('P', 'c', TB, 'A3', 'RoPE rotates the value vectors by the absolute position so the output '
     'remembers where each token was.', {'a3.rope': (0, 1)}),
    ('H', 'c', TB, 'A3', 'RoPE adds a rotation vector to each token embedding before the first '
     'layer so absolute position is known.', {'a3.rope': (0, 1)}),
    ('P', 'c', TB, 'A3', 'Self-attention already reads the tokens in sequence like an RNN, so '
     'positions only help speed.', {}),
    ('H', 'c', TB, 'A3', 'A transformer needs positional information because attention is too '
     'slow on long sequences without it.', {}),
    ('P', 'd', TB, 'A3', 'Sinusoidal: fixed, no parameters, but it only works up to the training '
     'length.', {'a3.sinusoidal': (1, 1)}),
    ('H', 'd', TB, 'A3', 'Learned absolute embeddings train one vector per position and '
     'extrapolate well to any length.', {'a3.learned': (0, 1)}),
    ('P', 'd', TB, 'A3', 'RoPE rotates q and k by position-dependent angles, which makes the '
     'attention depend on absolute positions only.', {'a3.rope': (1, 2)}),
    ('P', 'e', TB, 'A3', 'attention is order-blind', {'a3.order': (2, 3)}),
    ('H', 'e', TB, 'A3', 'sin PE: fixed, any length', {'a3.sinusoidal': (2, 2)}),
    ('P', 'e', TB, 'A3', 'RoPE: rotate q,k -> score depends on m-n', {'a3.rope': (3, 3)}),
    ('H', 'e', TB, 'A3', 'learned: one vector/position, max len', {'a3.learned': (2, 2)}),
    ('P', 'f', TB, 'A3', "- why: attention alone can't see order\n- sinusoidal: fixed formula, "
     'works for any length\n- learned: trained table, capped at max length\n- RoPE: rotates q/k '
     'by position, dot product depends on relative distance',
     {'a3.order': (2, 3), 'a3.sinusoidal': (2, 2), 'a3.learned': (2, 2), 'a3.rope': (3, 3)}),
    ('H', 'f', TB, 'A3', '1. self-attention is permutation-equivariant, so order must be added\n'
     '2. sinusoidal = trained, limited to training length\n3. learned = fixed formula\n4. RoPE '
     'rotates queries and keys',
     {'a3.order': (3, 3), 'a3.rope': (2, 2)}),
    # ---- A4: a4.roles (3), a4.scaling (4), a4.diagonal (3) ----
    ('P', 'a', TB, 'A4', 'Each word sends out a question vector saying what it wants, every '
     'word shows a tag vector saying what it is about, and the matched words hand over their '
     'content vectors.', {'a4.roles': (2, 3)}),
    ('H', 'a', TB, 'A4', 'The query says what the current word is hunting for, the key is the '
     'label other words are matched by, and the value is the payload that gets mixed into the '
     'result.', {'a4.roles': (3, 3)}),
    ('P', 'a', TB, 'A4', 'A dot product of two long random vectors sums d_k terms, so its spread '
     'grows like the root of d_k; big scores push softmax to put all weight on one entry where '
     'its slope is nearly flat, so dividing by root d_k keeps them moderate.',
     {'a4.scaling': (4, 4)}),
    ('H', 'a', TB, 'A4', 'With wide vectors the raw scores get huge, the softmax turns almost '
     'one-hot and barely passes any gradient back; the division brings the scores back to unit '
     'size.', {'a4.scaling': (3, 4)}),
    ('P', 'a', TB, 'A4', 'Entry (i, i) is how strongly word i looks at itself; since its query '
     'and key are made from the same vector these are often the brightest cells.',
     {'a4.diagonal': (3, 3)}),
    ('H', 'a', TB, 'A4', 'The cells on the main line from top-left to bottom-right are each word '
     'matched against its own key, and they are usually bigger than the rest of the row.',
     {'a4.diagonal': (3, 3)}),
    ('P', 'b', TB, 'A4', "If we didn't divide by sqrt(d_k), the scores would grow with the "
     'dimension and the softmax would saturate, leaving almost no gradient.',
     {'a4.scaling': (4, 4)}),
    ('H', 'b', TB, 'A4', "The diagonal isn't about neighbours: entry i,i is token i against "
     'itself, which is usually high because q_i and k_i come from the same x_i.',
     {'a4.diagonal': (3, 3)}),
    ('P', 'b', TB, 'A4', "The value isn't what gets compared; the query and key are compared, "
     'the query being what a token looks for and the key what it offers, and only the value is '
     'passed on.', {'a4.roles': (3, 3)}),
    ('P', 'c', TB, 'A4', 'Dividing by sqrt(d_k) makes the softmax sharper so that each token '
     'attends to one word more decisively.', {}),
    ('H', 'c', TB, 'A4', 'We divide by sqrt(d_k) because the dot products get too small as d_k '
     'grows, and scaling makes them bigger.', {'a4.scaling': (0, 1)}),
    ('P', 'c', TB, 'A4', 'The key is what the token is searching for, the query is what it '
     'offers, and the value is the attention weight.', {'a4.roles': (0, 1)}),
    ('H', 'c', TB, 'A4', 'The value decides which tokens are relevant, the key holds the content '
     'that is passed on, and the query is the output.', {}),
    ('P', 'c', TB, 'A4', 'The diagonal shows how much each word attends to the next word in the '
     'sentence.', {}),
    ('H', 'c', TB, 'A4', "The diagonal entries are small because a token's query and key are "
     'unrelated, so tokens rarely attend to themselves.', {'a4.diagonal': (0, 2)}),
    ('P', 'd', TB, 'A4', "The diagonal is each token's attention to itself, and it is always "
     'zero because of the causal mask.', {'a4.diagonal': (0, 2)}),
    ('H', 'd', TB, 'A4', 'Scaling by sqrt(d_k) stops the softmax from saturating, and it also '
     'makes the weights sum to one.', {'a4.scaling': (2, 3)}),
    ('P', 'e', TB, 'A4', 'diag = self-attention score, usually the biggest',
     {'a4.diagonal': (3, 3)}),
    ('H', 'e', TB, 'A4', 'q = what I want, k = what I have, v = what I give',
     {'a4.roles': (3, 3)}),
    ('P', 'e', TB, 'A4', 'keeps softmax out of saturation as d_k grows', {'a4.scaling': (3, 4)}),
    ('P', 'f', TB, 'A4', "Q: what I'm looking for\nK: what I contain\nV: what I pass on\n"
     'scaling: var(q·k) = d_k -> softmax saturates -> divide by sqrt(d_k)\ndiagonal: token vs '
     'itself, often largest',
     {'a4.roles': (3, 3), 'a4.scaling': (4, 4), 'a4.diagonal': (3, 3)}),
    ('H', 'f', TB, 'A4', '(i) queries are matched against keys, values are what the weights '
     'average\n(ii) without scaling, big dot products make the softmax peaky and its gradient '
     'tiny\n(iii) diagonal = every token with itself',
     {'a4.roles': (2, 3), 'a4.scaling': (3, 4), 'a4.diagonal': (2, 3)}),
    # ---- A5: a5.why_heads (5), a5.dims (5) ----
    ('P', 'a', TB, 'A5', 'One head can only form one weighting of the sentence at a time; with '
     'many, one can follow grammar while another tracks which pronoun refers to what, all at the '
     'same moment.', {'a5.why_heads': (4, 5)}),
    ('H', 'a', TB, 'A5', 'Several heads let the model look at the sentence in several ways side '
     'by side, e.g. one head for nearby words and one for far-away ones, instead of blending '
     'everything into a single weighting.', {'a5.why_heads': (5, 5)}),
    ('P', 'a', TB, 'A5', "d_model is how long every token's vector is, h counts the heads, and "
     'each head works on a slice of width d_model divided by h.', {'a5.dims': (5, 5)}),
    ('H', 'a', TB, 'A5', "d_model: width of each token representation; h: how many heads there "
     "are; d_head: each head's share, the width split evenly among them.",
     {'a5.dims': (5, 5)}),
    ('P', 'b', TB, 'A5', 'Without multiple heads the model would have to average all relations '
     'into one attention pattern.', {'a5.why_heads': (3, 5)}),
    ('H', 'b', TB, 'A5', "d_head isn't chosen freely: it is d_model / h, with d_model the "
     'embedding size and h the number of heads.', {'a5.dims': (5, 5)}),
    ('P', 'c', TB, 'A5', 'Multiple heads are used so each head processes a different part of '
     'the sentence, which makes the model faster.', {'a5.why_heads': (0, 1)}),
    ('H', 'c', TB, 'A5', 'More heads are used because they reduce the number of parameters and '
     'make training converge faster.', {}),
    ('P', 'c', TB, 'A5', 'd_model is the vocabulary size, h is the number of layers, and d_head '
     '= d_model * h.', {}),
    ('H', 'c', TB, 'A5', 'h is the number of tokens in the sequence, d_model the embedding size, '
     'and d_head = h / d_model.', {'a5.dims': (0, 1)}),
    ('P', 'd', TB, 'A5', 'Heads attend to different relations in parallel; d_model is the '
     'embedding size, h the number of heads, and d_head = d_model * h.',
     {'a5.why_heads': (4, 5), 'a5.dims': (2, 3)}),
    ('P', 'e', TB, 'A5', 'different heads, different patterns, all at once',
     {'a5.why_heads': (4, 5)}),
    ('H', 'e', TB, 'A5', 'd_head = d_model/h (h = #heads, d_model = embedding dim)',
     {'a5.dims': (5, 5)}),
    ('H', 'f', TB, 'A5', '- heads: each learns its own relation (syntax, coreference), in '
     'parallel\n- d_model: token vector size\n- h: heads\n- d_head = d_model / h',
     {'a5.why_heads': (4, 5), 'a5.dims': (4, 5)}),
    # ---- A6: a6.greedy (4), a6.beam (4), a6.example (2) ----
    ('P', 'a', TB, 'A6', 'Greedy grabs whichever word looks best right now and never '
     'reconsiders, so a slightly worse word now that would lead to a much likelier sentence is '
     'never tried.', {'a6.greedy': (4, 4)}),
    ('H', 'a', TB, 'A6', 'At each step it goes with the single top-scoring word; but the '
     "sentence with the best overall score may start with a word that wasn't the top one at its "
     'step.', {'a6.greedy': (4, 4)}),
    ('P', 'a', TB, 'A6', 'Beam search carries the few best unfinished sentences forward, grows '
     'each by one word, and keeps only the best few by their overall score.',
     {'a6.beam': (4, 4)}),
    ('H', 'a', TB, 'A6', 'Instead of betting on one path, beam search keeps a shortlist of k '
     'partial outputs, extends all of them, and prunes back to the k with the highest summed '
     'log-likelihood.', {'a6.beam': (4, 4)}),
    ('P', 'b', TB, 'A6', "Greedy isn't optimal because the best word at each step doesn't have "
     'to be part of the most likely whole sentence.', {'a6.greedy': (3, 4)}),
    ('H', 'b', TB, 'A6', "Beam search doesn't commit to one path: it keeps k candidates and "
     'scores each by its total log probability.', {'a6.beam': (4, 4)}),
    ('P', 'c', TB, 'A6', 'Greedy decoding is suboptimal because it picks a random word at each '
     'step instead of the most likely one.', {'a6.greedy': (0, 1)}),
    ('H', 'c', TB, 'A6', 'Greedy is suboptimal because it looks at all possible sentences, which '
     'takes too long.', {}),
    ('P', 'c', TB, 'A6', 'Beam search samples k random tokens at each step and keeps whichever '
     'has the lowest probability.', {'a6.beam': (0, 1)}),
    ('H', 'c', TB, 'A6', 'Beam search keeps the k best tokens at each position independently and '
     'joins them at the end.', {'a6.beam': (0, 2)}),
    ('P', 'd', TB, 'A6', 'Greedy takes the most probable token each step; beam search is faster '
     'because it prunes most tokens.', {'a6.greedy': (2, 2), 'a6.beam': (0, 1)}),
    ('H', 'd', TB, 'A6', 'Beam search keeps the k best partial sequences, but ranks them by the '
     'probability of the last token only.', {'a6.beam': (2, 3)}),
    ('P', 'e', TB, 'A6', 'greedy = argmax each step, myopic', {'a6.greedy': (2, 4)}),
    ('H', 'e', TB, 'A6', 'beam: keep top-k prefixes by total log-prob', {'a6.beam': (4, 4)}),
    ('P', 'e', TB, 'A6', "e.g. P(the)=0.5, P(a)=0.4, but P(a cat)=0.4*0.9 > P(the dog)=0.5*0.3: "
     "greedy outputs 'the dog', beam with k=2 finds 'a cat'",
     {'a6.example': (2, 2), 'a6.greedy': (0, 4), 'a6.beam': (0, 3)}),
    ('P', 'f', TB, 'A6', '1. greedy: argmax token each step, can miss the best full sequence\n'
     '2. beam: keep k best partial sequences, extend, keep k best by total log prob\n3. example: '
     "greedy picks 'the' (0.5) then 0.3; beam finds 'a' (0.4) then 0.9",
     {'a6.greedy': (4, 4), 'a6.beam': (4, 4), 'a6.example': (2, 2)}),
    ('H', 'f', TB, 'A6', '- greedy: picks the top word every step; locally best != globally '
     'best\n- beam: holds several hypotheses, ranks by cumulative probability\n- example: with '
     "p(A)=0.6, p(B)=0.4 greedy takes A, but B's continuation is far likelier so beam outputs B",
     {'a6.greedy': (4, 4), 'a6.beam': (4, 4), 'a6.example': (2, 2)}),
    # ---- cs224n-attention ----
    ('P', 'a', CS, '1a.i', 'When the query lines up with key j far better than with any of the '
     'other keys.', {'1a.i': (2, 2)}),
    ('H', 'e', CS, '1a.i', 'k_j^T q is much bigger than every other k_i^T q', {'1a.i': (2, 2)}),
    ('P', 'a', CS, '1a.i', 'When k_j^T·q is large and takes the largest value among all the '
     'scores.', {'1a.i': (2, 2)}),
    ('H', 'c', CS, '1a.i', 'When the value vector v_j is much larger in norm than the other '
     'values.', {}),
    ('P', 'c', CS, '1a.i', 'When all the keys are equal to each other so that their dot products '
     'with q are the same.', {}),
    ('H', 'b', CS, '1a.i', 'If no other key came close to k_j in its score against q, the '
     'softmax would put nearly everything on j.', {'1a.i': (2, 2)}),
    ('P', 'a', CS, '1a.ii', 'c ends up basically the same as the j-th value vector.',
     {'1a.ii': (1, 1)}),
    ('H', 'c', CS, '1a.ii', 'c is the average of all the value vectors.', {}),
    ('H', 'e', CS, '1a.ii', 'c ≈ v_j', {'1a.ii': (1, 1)}),
    ('P', 'c', CS, '1a.ii', 'c is approximately the key k_j.', {}),
    ('P', 'a', CS, '1c.ii', "Sometimes k_a comes out long and wins the softmax, so c lands near "
     "v_a; other times it's short and b wins, giving c near v_b - so from sample to sample c "
     'swings between the two.', {'1c.ii': (3, 3)}),
    ('H', 'c', CS, '1c.ii', 'c stays close to the average of v_a and v_b since the noise '
     'averages out across samples.', {}),
    ('H', 'd', CS, '1c.ii', 'When k_a is longer, c goes to v_b, and when it is shorter c goes to '
     'v_a, so c varies a lot.', {'1c.ii': (1, 2)}),
    ('P', 'e', CS, '1c.ii', 'c flips between v_a and v_b, high variance', {'1c.ii': (2, 3)}),
    ('P', 'a', CS, '1d.ii', 'Head 1 keeps picking out v_a however long k_a is, head 2 keeps '
     'picking v_b, so their mean stays put at about (v_a+v_b)/2.', {'1d.ii': (2, 2)}),
    ('H', 'c', CS, '1d.ii', 'c still jumps between v_a and v_b, because both heads look at k_a.',
     {}),
    ('H', 'b', CS, '1d.ii', "The norm of k_a no longer changes the result: it can't move head 2 "
     'off v_b, and head 1 copies v_a either way, so c barely varies.', {'1d.ii': (2, 2)}),
    ('P', 'a', CS, '1e', 'Each head only needs to lock onto one key, which survives changes in '
     'the key sizes, and averaging the heads then gives the mix.', {'1e': (1, 1)}),
    ('H', 'c', CS, '1e', 'More heads make the average more robust because they add more '
     'parameters that can memorize the training data.', {}),
    ('P', 'c', CS, '1e', 'Several heads help because each head uses a larger dimension than a '
     'single head.', {}),
    ('P', 'a', CS, '2a.ii', "It can't tell 'the dog bit the man' from 'the man bit the dog': "
     'shuffling the words only shuffles the outputs.', {'2a.ii': (1, 1)}),
    ('H', 'c', CS, '2a.ii', 'The model can still tell the word order from the attention weights, '
     'so position information is not needed.', {}),
    ('H', 'a', CS, '2a.ii', 'To such a model a sentence is just a multiset of tokens; their '
     'arrangement leaves no trace.', {'2a.ii': (1, 1)}),
    ('P', 'a', CS, '2b.i', 'Yes - the added position vectors stay in place when the tokens are '
     'reordered, so reordering now gives a different result.', {'2b.i': (1, 1)}),
    ('H', 'c', CS, '2b.i', 'No, the layer is still permutation-equivariant because the position '
     'embeddings are permuted together with the tokens.', {}),
    ('P', 'c', CS, '2b.i', 'No, since adding a vector to every input commutes with the '
     'permutation.', {}),
    ('P', 'a', CS, '2b.ii', 'No: the lowest-frequency dimension takes around 62,800 positions to '
     'come back round, way more than any sentence, so every position gets its own vector.',
     {'2b.ii': (1, 1)}),
    ('H', 'c', CS, '2b.ii', 'Yes, because sine is periodic, positions 0 and 2π give the same '
     'embedding in every sentence.', {}),
    ('H', 'a', CS, '2b.ii', 'No; the sine waves have different wavelengths, and the longest is '
     'far longer than any realistic input, so the pattern never repeats within a sequence.',
     {'2b.ii': (1, 1)}),
]


def table(stats: dict[str, list[int]]) -> list[str]:
    lines = ["| batch | class | item grades | within range | to review | auto-graded out of "
             "range | confidently wrong (>= 0.8) |", "|---|---|---|---|---|---|---|"]
    for batch in ("P", "H"):
        total = [0] * 5
        for cls, name in CLASSES.items():
            row = stats.get(f"{batch}/{cls}", [0] * 5)
            total = [t + r for t, r in zip(total, row, strict=True)]
            lines.append(f"| {batch} | {cls}: {name} | " + " | ".join(map(str, row)) + " |")
        lines.append(f"| {batch} | all | " + " | ".join(map(str, total)) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--no-write", action="store_true", help="print, do not edit the docs")
    args = parser.parse_args()
    notes: list[Note] = [(f"{b}/{c}", slug, q, text, ranges)
                         for b, c, slug, q, text, ranges in NOTES]
    stats, wrong, _ = run(notes, report_auto=True)
    lines = ["## Written answers: a seventh probe, six classes of writing on every written item "
             "(ranges set before grading)", "",
             f"{len(NOTES)} notes written here for the written items of transformer-basics and "
             "cs224n-attention; batch P was used when fixing, batch H is held out. Written "
             f"grader version {GRADER.version}. First run, on version 20 before any fix: P 163 "
             "of 204 within range, 69 to review, 10 auto-graded out of range, 7 confidently "
             "wrong; H 153 of 192, 66, 10, 5.", "", *table(stats)]
    if wrong:
        lines += ["", "| batch/class | item | graded | range | answer |", "|---|---|---|---|---|",
                  *wrong]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("written_probe_classes", body)


if __name__ == "__main__":
    main()
