from __future__ import annotations

import pytest

from graders.written.patterns import PatternError, compile_pattern, find_affirmed, is_negated


@pytest.mark.parametrize(
    ("pattern", "text", "found"),
    [
        ("XOR ... linearly separable", "XOR is linearly separable", True),
        ("XOR ... linearly separable", "XOR is not linearly separable", False),
        ("XOR ... linearly separable", "XOR isn't linearly separable", False),
        ("XOR ... linearly separable", "it is never true that XOR is linearly separable", False),
        ("NOT linearly separab*", "XOR isn't linearly separable", True),
        ("NOT linearly separab*", "XOR is linearly separable", False),
        ("self attention ... order", "self attention ignores word order", True),
        ("d_head = d_model / h", "so d_head=d_model/h here", True),
        ("d_head = d_model / h", "d_headx = d_model / h", False),
        ("separab*", "separability", True),
        ("key", "keys", False),
        ("(?-i:OR) ... (?-i:AND)", "the OR and NAND units feed an AND", True),
        ("(?-i:OR) ... (?-i:AND)", "or and and", False),
    ],
)
def test_match_with_negation(pattern: str, text: str, found: bool) -> None:
    assert (find_affirmed(pattern, text) is not None) is found


def test_negation_stays_in_its_clause() -> None:
    text = "it does not saturate, but the gradient vanishes"
    assert not is_negated(text, text.index("gradient"))
    assert is_negated(text, text.index("saturate"))
    assert find_affirmed("(gradient) vanish*", text) is not None


def test_instead_of_negates() -> None:
    assert find_affirmed("adding ... embeddings", "instead of adding it to the embeddings") is None


def test_gap_is_bounded() -> None:
    assert find_affirmed("beam ... faster", "beam " + "word " * 7 + "faster") is None
    assert find_affirmed("beam ... faster", "beam " + "word " * 5 + "faster") is not None


def test_bad_pattern_is_an_error() -> None:
    with pytest.raises(PatternError):
        compile_pattern("(unclosed")
    with pytest.raises(PatternError):
        compile_pattern("   ")


def test_a_stem_right_before_a_gap_matches_any_ending() -> None:
    # `word* ... x` once compiled to `word*` (the letter repeated), matching only "positio(n)".
    hit = find_affirmed("position* ... (add*|inject*)", "The positional encoding is added here.")
    assert hit is not None and hit.text == "positional encoding is added"
    assert find_affirmed("gradient* ... vanish*", "gradients may vanish") is not None
