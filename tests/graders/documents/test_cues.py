"""Cue words as students write them: identifiers (snake_case, camelCase, in backticks),
inflections, and the small set of near-synonyms of this domain; symbols with a one-letter part
(`d_model`, `W_Q`) as written, acronyms and brands whole, and no word found inside another."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from graders.documents.cues import NormalisedText, compile_cue, normalise, stem

# two- and three-word cue phrases of this domain's kind, with the words' own letters only
WORDS = st.lists(st.sampled_from(["positional", "encoding", "attention", "layer", "query",
                                  "residual", "stream", "mask", "head", "norm", "table"]),
                 min_size=1, max_size=3, unique=True)
FILLER = st.sampled_from(["", "We use a ", "Here the ", "The model adds the "])


def _found(cue: str, text: str) -> bool:
    pattern = compile_cue(cue)
    assert pattern is not None
    return NormalisedText.of(text).contains(pattern)


def _spelled(words: list[str], style: str) -> str:
    if style == "snake":
        return "_".join(words)
    if style == "kebab":
        return "-".join(words)
    if style == "camel":
        return words[0] + "".join(w.title() for w in words[1:])
    if style == "pascal":
        return "".join(w.title() for w in words)
    return " ".join(words)


@given(WORDS, st.sampled_from(["snake", "kebab", "camel", "pascal", "spaced"]),
       st.booleans(), st.sampled_from(["", "s"]), FILLER)
def test_an_identifier_reads_as_its_words(
    words: list[str], style: str, ticks: bool, plural: str, before: str
) -> None:
    name = _spelled(words, style) + plural
    text = f"{before}`{name}` here." if ticks else f"{before}{name} here."
    assert _found(" ".join(words), text), text
    # the cue written as an identifier reads the same
    assert _found("_".join(words), f"{before}{' '.join(words)}{plural} here.")


@given(st.sampled_from(["stacking", "issues", "queries", "masked", "heads", "layers"]),
       st.sampled_from(["", "s", "ed", "ing"]))
def test_a_cue_word_stands_for_its_inflections(cue: str, ending: str) -> None:
    root = stem(cue)
    text = f"the {root}{ending} of it" if root != "quer" else f"the quer{ending or 'y'} of it"
    assert _found(cue, text), (cue, text)


@given(st.sampled_from(["learnable", "trainable", "learned", "learnt"]),
       st.sampled_from(["learnable", "trainable", "learned", "learnt"]))
def test_near_synonyms_match_each_other(cue: str, written: str) -> None:
    assert _found(f"{cue} positional encoding", f"a {written} `positional_encodings` table")


def test_what_is_not_a_match() -> None:
    assert not _found("each", "we reach the end")
    assert not _found("learnable", "deep learning helps")  # a synonym set is not a stem
    assert not _found("dummy dataset", "a dummy model")
    assert not _found("stacking", "a stash of layers")
    # a symbol with a one-letter part is matched as written, not as words
    assert not _found("d_model", "the data model")
    assert _found("d_model", r"$d_{\text{model}} = 512$")
    assert _found("d_k", r"$\sqrt{d_k}$")
    # an acronym and a brand stay whole
    assert _found("RoPE", "With RoPE the accuracy rose")
    assert _found("PyTorch", "written in PyTorch")
    assert _found("pytorch", "written in PyTorch")


def test_cost_is_linear_on_hostile_identifiers() -> None:
    text = ("aB" * 20000) + " " + ("_x" * 20000) + " " + ("a" * 40000)
    norm = NormalisedText.of(text)
    for cue in ("positional encoding", "learnable", "self-attention layers"):
        pattern = compile_cue(cue)
        assert pattern is not None and not norm.contains(pattern)


@given(st.lists(st.sampled_from([*"aBcD_-{} \\$`*^()xyzαΣ\n.,t", "\\text{", "\\mathrm{",
                                 "ext", "Encoding"]), max_size=40).map("".join))
def test_reading_words_leaves_the_symbol_form_as_it_was(text: str) -> None:
    """Symbol cues (`d_model`, `QK^T`) read the compact form; the words form's extra spaces
    (braces, camelCase seams) and dropped marks never reach it."""
    assert NormalisedText.of(text).compact == normalise(text).replace(" ", "")


@given(st.sampled_from(["divid", "scal", "normali", "saturat", "quadrat"]),
       st.sampled_from(["e", "ed", "ing", "ion", "es", "ation", ""]),
       st.sampled_from(["", "after we ", "(b) ", "the value "]))
def test_a_cue_ending_in_a_star_matches_any_word_that_starts_so(
        stem_: str, ending: str, before: str) -> None:
    """`divid*`, as the written grader's patterns are written: an instructor writes numeric
    and question cues the same way (it matched nothing before, silently)."""
    assert _found(f"{stem_}*", f"{before}{stem_}{ending} by sqrt(d_k) it is 1")
    assert not _found(f"{stem_}*", f"in{stem_}{ending} by sqrt(d_k)")
