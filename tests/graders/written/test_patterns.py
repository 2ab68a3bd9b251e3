from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.written.patterns import PatternError, compile_pattern, find_affirmed, is_negated
from graders.written.text import normalise


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


# A compound written with a hyphen in a pattern ('warm-?up', 'pre-LN', 'self-attention') is
# found however the answer writes it (with a hyphen, a space or joined): answers are read with
# a hyphen between letters as a space (`text.normalise`), so before the fix 'warm-?up' never
# matched "needs a warm-up".
COMPOUNDS = [("warm", "up"), ("pre", "LN"), ("self", "attention"), ("learning", "rate"),
             ("top", "k"), ("multi", "head")]


@settings(deadline=None)  # a loaded machine is no failure
@given(st.sampled_from(COMPOUNDS), st.sampled_from(["-", " ", ""]), st.booleans(),
       st.sampled_from(["it needs a {} first.", "the {} matters", "({}) is used"]))
def test_a_hyphenated_compound_matches_as_answers_are_read(
        compound: tuple[str, str], joint: str, optional: bool, frame: str) -> None:
    first, second = compound
    pattern = f"{first}-{'?' if optional else ''}{second}"
    written = normalise(frame.format(f"{first}{joint}{second}"))
    assert find_affirmed(pattern, written) is not None, (pattern, written)
    # still a word of its own, and a negation still counts
    assert find_affirmed(pattern, f"{first}{second}x and {first}x {second}") is None
    assert find_affirmed(pattern, normalise(f"there is no {first}-{second}")) is None


def test_a_character_class_keeps_its_hyphen() -> None:
    assert find_affirmed("memory[- ]saving", "a memory-saving trick") is not None
    assert find_affirmed("memory[- ]saving", "a memoryxsaving trick") is None
