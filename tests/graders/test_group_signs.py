"""normalise_text, the key of answers grouped by text: answers that differ by a sign that
changes what they say get different keys; copies that differ in case, blanks, prose
punctuation or a hyphen between two words get one key (hypothesis over both)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from graders.answer_keys import MAX_TEXT, normalise_text

WORDS = st.lists(st.from_regex(r"[a-z]{1,8}|[0-9]{1,3}", fullmatch=True), min_size=1,
                 max_size=6).map(" ".join)
# Pairs of signs that make two statements of one sentence (the second may be nothing: a sign
# inserted or removed).
OPPOSITES = st.sampled_from([
    ("=", "≠"), ("<", ">"), ("≤", "≥"), ("+", "-"), ("+", "−"), ("*", "/"), ("∈", "∉"),
    ("-", ""), ("^", ""), ("√", ""), ("¬", ""), ("×", "÷"),
])
PROSE = st.sampled_from([".", ",", ";", ":", "!", "?", "…", "'", '"', "(", ")"])


@given(left=WORDS, right=WORDS, pair=OPPOSITES)
def test_a_sign_that_changes_the_statement_changes_the_key(left: str, right: str,
                                                           pair: tuple[str, str]) -> None:
    one, other = pair
    assert normalise_text(f"{left} {one} {right}") != normalise_text(f"{left} {other} {right}")


@given(words=st.lists(st.from_regex(r"[a-z]{2,8}", fullmatch=True), min_size=2, max_size=8),
       data=st.data())
def test_copies_in_other_spellings_share_the_key(words: list[str], data: st.DataObject) -> None:
    plain = " ".join(words)
    # A hyphen joins two words; blanks of any kind and prose marks may come between others.
    seps = [data.draw(st.sampled_from([" ", "  ", "\t", "\n", "-"])) for _ in words[1:]]
    dressed = ""
    for index, word in enumerate(words):
        if data.draw(st.booleans()):
            word = word.upper()
        joined = index < len(seps) and seps[index] == "-"
        prose = "" if joined else data.draw(st.just("") | PROSE)
        dressed += word + prose + (seps[index] if index < len(seps) else "")
    assert normalise_text(dressed) == normalise_text(plain)


def test_the_key_is_bounded() -> None:
    assert len(normalise_text("+-" * 1_000_000)) <= MAX_TEXT
