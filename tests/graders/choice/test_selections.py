"""How a several-selections reply is split: the class of choices whose own text holds a list
separator ("keys and values", "Adam, with warm-up", "A & B"), listed by students with any of the
separators they use, must come back as the selections the student made, no more, no fewer."""

from __future__ import annotations

from hypothesis import assume, given, settings
from hypothesis import strategies as st

from graders.choice.config import MAX_ANSWER, normalise, split_selections

WORDS = ["keys", "values", "queries", "heads", "Adam", "warm-up", "layer norm", "dropout",
         "residual", "softmax", "masking", "scaling"]
JOINERS = [", ", " and ", " & ", "; ", ", and "]
SEPARATORS = [", ", "; ", "\n", " and ", " & ", " | ", ",", " ,  "]


@st.composite
def choices(draw: st.DrawFn) -> list[str]:
    """Distinct choices, some of them two words joined by a separator."""
    singles = draw(st.lists(st.sampled_from(WORDS), min_size=2, max_size=6, unique=True))
    out: list[str] = []
    for word in singles:
        if draw(st.booleans()):
            other = draw(st.sampled_from([w for w in WORDS if w != word]))
            out.append(f"{word}{draw(st.sampled_from(JOINERS))}{other}")
        else:
            out.append(word)
    return list(dict.fromkeys(out))


def _spans_a_boundary(offered: list[str], picked: list[str], separator: str) -> bool:
    """Whether an offered choice occurs in the reply across the separator between two picks
    ("keys" then "values" listed with " and " spell the choice "keys and values")."""
    text = separator.join(picked).lower()
    ends, at = [], 0
    for choice in picked[:-1]:
        at += len(choice)
        ends.append((at, at + len(separator)))
        at += len(separator)
    for choice in offered:
        start = text.find(choice.lower())
        while start >= 0:
            stop = start + len(choice)
            if any(start < b and stop > a for a, b in ends):
                return True
            start = text.find(choice.lower(), start + 1)
    return False


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_a_listed_choice_is_one_selection_however_it_is_written(data: st.DataObject) -> None:
    offered = data.draw(choices())
    picked = data.draw(st.lists(st.sampled_from(offered), min_size=1, max_size=len(offered),
                                unique=True))
    separator = data.draw(st.sampled_from(SEPARATORS))
    text = separator.join(picked)
    known = frozenset(normalise(c) for c in offered)
    # Another offered choice spelled across two selections is ambiguous: not this property.
    assume(not _spans_a_boundary(offered, picked, separator))
    got = [normalise(s) for s in split_selections(text, known)]
    assert got == [normalise(p) for p in picked]


def test_without_known_choices_every_separator_splits() -> None:
    assert split_selections("A, C and D; E") == ["A", "C", "D", "E"]


def test_the_longest_offered_spelling_is_taken() -> None:
    known = frozenset({"keys", "values", "keys and values"})
    assert split_selections("keys and values, queries", known) == ["keys and values", "queries"]


def test_a_long_reply_is_read_in_bounded_pieces() -> None:
    text = "A, " * 5000 + " " * 100_000
    got = split_selections(text, frozenset({"a"}))
    assert len(got) <= 65 and len("".join(got)) <= MAX_ANSWER
