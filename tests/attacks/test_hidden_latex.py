"""Credit for what the compiled document never shows: a LaTeX submission whose B1 answer reads
"See the table." on the page, with the three values in a `%` comment, an `\\iffalse` block or a
comment environment, was `graded` 10 of 10 with no review (the reader handed the source, comments
and all, to grading). A TA reading the PDF sees no value. Now the reader blanks what TeX never
typesets (graders/documents/latex_source.py): B1 is `missing`, as it is without the comment, and
the same values written on the page are still graded 10 of 10."""

from __future__ import annotations

import pytest

from tests.app.conftest import Api
from tests.attacks.hidden_b1 import Items, assert_credited, assert_unread, b1_items

VALUES = (r"$d_{head} = 768/12 = 64$. Each of W_Q is $768 \times 768 = 589{,}824$ weights, and "
          r"W_Q, W_K, W_V together $3 \times 589{,}824 = 1{,}769{,}472$.")
DOCUMENT = r"""\section*{A1}
XOR is not linearly separable: no single line separates its classes. A single perceptron's
decision boundary is one line (a hyperplane), since it thresholds a linear function. A
multi-layer perceptron adds a hidden layer with a nonlinear activation, which maps the points
into a space where they become separable.
\section*{A2}
Without nonlinear activations, the composition of linear layers W2 (W1 x) = (W2 W1) x is a single
linear map. Gradients vanish because backpropagation multiplies many derivatives smaller than
one (sigmoid's derivative is at most 0.25), so the product shrinks exponentially with depth.
ReLU has derivative 1 for positive inputs, so the gradient does not shrink.
\section*{A3}
Self-attention is permutation invariant, so without positional information the model cannot
tell word order. Sinusoidal encodings are fixed functions that extend to any length; learned
absolute embeddings are trained parameters limited to the maximum trained length; RoPE rotates
queries and keys so attention depends on relative position.
\section*{A4}
Queries ask what a token is looking for, keys describe what each token offers, values carry the
content that is mixed. Scores are divided by sqrt(d_k) because dot products grow with dimension
and would saturate the softmax. The diagonal of an attention map is how much each token attends
to itself.
\section*{A5}
Several heads let the model attend to different subspaces and relations at once. d_model is the
embedding size, h the number of heads, and d_head = d_model / h.
\section*{A6}
Greedy decoding picks the most likely token at each step, which can miss a sequence with higher
total probability. Beam search keeps the k best partial sequences at each step.
\section*{B1}
%s
\section*{B2}
The normaliser is $e^2 + e^1 + e^0 = 11.107$; the probabilities are 0.665, 0.245 and 0.090.
"""
HIDDEN = {
    "a comment": "See the table.\n% " + VALUES,
    "an iffalse block": "See the table.\n\\iffalse " + VALUES + " \\fi",
    "a comment environment": "See the table.\n\\begin{comment}\n" + VALUES + "\n\\end{comment}",
}


def _b1(target: Api, who: str, answer: str) -> Items:
    return b1_items(target, who, "answers.tex", (DOCUMENT % answer).encode(), "application/x-tex")


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_values_the_page_never_shows_earn_nothing(target: Api, name: str) -> None:
    items = _b1(target, "alice", HIDDEN[name])
    assert_unread(items)


def test_the_same_values_on_the_page_are_credited(target: Api) -> None:
    items = _b1(target, "bob", VALUES)
    assert_credited(items, graded=True)
