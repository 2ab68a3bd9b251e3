"""Class: formulas apart by brackets around an operator, a subscript's underscore or a
symbol's prime, grouped `by text` as one answer. The text key kept letters, digits,
mathematical symbols and ^ / * % -, and dropped every other mark, so `h_{t+1}` and `h_t + 1`,
`(W2 + W1) x` and `W2 + W1 x`, `f'(x)` and `f(x)` were one key, and one staff decision graded
both (tests/attacks/test_group_marks.py). Copies of one answer (case, spacing, prose
punctuation, brackets around words, a hyphen or an apostrophe inside a word) still share their
key (tests/graders/test_group_signs.py generates those)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.answer_keys import normalise_text

names = st.sampled_from(["h", "W", "x", "q", "k", "f", "W2", "W1", "d", "s"])
subscripts = st.sampled_from(["t", "t+1", "t-1", "i", "k", "model", "2"])
operators = st.sampled_from([" + ", " - ", " / ", " * ", " = ", " "])


@st.composite
def formulas(draw: st.DrawFn) -> list[str]:
    """A formula as a list of pieces, each piece a name, possibly subscripted or primed."""
    pieces = []
    for _ in range(draw(st.integers(2, 4))):
        piece = draw(names)
        if draw(st.booleans()):
            piece += "_{" + draw(subscripts) + "}"
        pieces.append(piece)
        pieces.append(draw(operators))
    return pieces[:-1]


@st.composite
def marked_apart(draw: st.DrawFn) -> tuple[str, str]:
    """One formula, and the same with one bracket pair, underscore or prime changed."""
    pieces = draw(formulas())
    at = draw(st.integers(0, len(pieces) - 1).filter(lambda i: i % 2 == 0))
    way = draw(st.sampled_from(["brackets", "subscript", "prime"]))
    if way == "brackets" and (at + 2 >= len(pieces) or not pieces[at + 1].strip()):
        way = "prime"  # brackets around a product alone (`(W2 W1) x`) change nothing
    other = list(pieces)
    if way == "brackets":
        other[at], other[at + 2] = "(" + other[at], other[at + 2] + ")"
    elif way == "subscript":
        name = pieces[at].split("_", 1)[0]
        sub = draw(subscripts)
        pieces[at], other[at] = f"{name}_{{{sub}}}", f"{name}_{sub}" if "+" in sub or "-" in sub \
            else f"{name}{sub}"
    else:
        other[at] = pieces[at] + "'"
    return "".join(pieces), "".join(other)


@settings(max_examples=300, deadline=None)
@given(marked_apart(), st.sampled_from(["", "Without activations: ", "so "]))
def test_formulas_apart_by_a_mark_have_two_keys(pair: tuple[str, str], lead: str) -> None:
    one, other = pair
    assert normalise_text(lead + one) != normalise_text(lead + other), pair


@settings(max_examples=200, deadline=None)
@given(formulas(), st.sampled_from(["", ".", "!", " .", ";"]), st.booleans(),
       st.sampled_from(["", "It is ", "Answer: "]))
def test_copies_of_one_formula_share_their_key(pieces: list[str], end: str, upper: bool,
                                               lead: str) -> None:
    text = "".join(pieces)
    copy = "  " + (text.upper() if upper else text).replace(" ", "   ") + end
    assert normalise_text(lead + text) == normalise_text(lead + copy)


def test_words_joined_by_a_hyphen_or_an_apostrophe_are_spelling() -> None:
    assert normalise_text("XOR isn't linearly-separable.") == \
        normalise_text("xor isn’t linearly separable")
    assert normalise_text("f'(x) = 0") != normalise_text("f(x) = 0")


def test_brackets_around_words_or_a_lone_symbol_are_prose() -> None:
    assert normalise_text("Attention (the mechanism) ignores order.") == \
        normalise_text("Attention, the mechanism, ignores order")
    assert normalise_text("h_{i} = W x_{i}") == normalise_text("h_i = W x_i")
    assert normalise_text("the students' answers (a)") == normalise_text("the students answers a")
