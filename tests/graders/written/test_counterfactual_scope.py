"""Counterfactual openers: "Without X(,) Y" states Y; the negation is of X only.

The class: answers to "what goes wrong without X?" written as "Without it a few experts get
almost every token", "Without the loss, the router collapses", "In the absence of X, Y",
"If we didn't have X, Y", "Had we not used X, Y", or "Y without X", and the conditions without
their comma ("If we didn't have it the experts get every token", "Had we not used scaling the
softmax saturates": the negation was read as governing Y, not stated). Y is affirmed (its
pattern and its phrasing match); "Without X, Y does not happen" still negates Y.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.written.contradiction import opposite_of
from graders.written.meaning import turned_around
from graders.written.patterns import find_affirmed

# (subject noun, verb, the verb's -s form, object): Y is "<det> <noun> <verb>s <object>".
_CLAIMS = [
    ("experts", "get", "get", "almost every token"),
    ("router", "collapse", "collapses", "onto two experts"),
    ("softmax", "saturate", "saturates", "quickly"),
    ("model", "ignore", "ignores", "the word order"),
    ("gradients", "vanish", "vanish", "in the early layers"),
    ("scores", "grow", "grow", "with the dimension"),
]
_OBJECTS = ["it", "them", "this", "that", "the loss", "the auxiliary loss", "scaling",
            "positional encodings", "a mask", "the residual path", "those"]
_DETS = ["the", "a few", "a", "each", "every", "all the", "most"]
_FORMS = [
    "Without {x}, {y}", "Without {x} {y}", "without {x}, {y}", "In the absence of {x}, {y}",
    "In the absence of {x} {y}", "If we didn't have {x}, {y}", "If there were no {x}, {y}",
    "Had we not used {x}, {y}", "{y} without {x}", "(b) Without {x} {y}", "7 Without {x} {y}",
    # the same conditions without their comma ("If we didn't have it the experts get ...")
    "If we didn't have {x} {y}", "If we did not have {x} {y}", "Had we not used {x} {y}",
    "If there were no {x} {y}", "If we didn't use {x} {y}", "If we never had {x} {y}",
]


def _y(det: str, claim: tuple[str, str, str, str], negated: bool) -> str:
    noun, verb, verbs, obj = claim
    third = "s" if verbs != verb else ""
    middle = f"do{'es' if third else ''} not {verb}" if negated else verbs
    return f"{det} {noun} {middle} {obj}"


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(_FORMS), st.sampled_from(_OBJECTS), st.sampled_from(_DETS),
       st.sampled_from(_CLAIMS), st.booleans())
def test_counterfactual_states_its_consequence(form: str, x: str, det: str,
                                               claim: tuple[str, str, str, str],
                                               negated: bool) -> None:
    text = form.format(x=x, y=_y(det, claim, negated))
    pattern = f"{claim[0]} ... {claim[1]}*"
    hit = find_affirmed(pattern, text)
    assert (hit is not None) is not negated, (text, pattern, hit)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([f for f in _FORMS if not f.startswith(("If", "Had"))]),
       st.sampled_from(["it", "them", "this", "those"]), st.sampled_from(_DETS),
       st.sampled_from(_CLAIMS), st.booleans())
def test_counterfactual_phrasing_keeps_polarity(form: str, x: str, det: str,
                                                claim: tuple[str, str, str, str],
                                                negated: bool) -> None:
    """The phrasing guard reads the same: "without it" negates "it", not the words after."""
    text = form.format(x=x, y=_y(det, claim, negated)).lower()
    phrasing = _y("the", claim, False)
    assert (turned_around(text, phrasing) is not None) is negated, (text, phrasing)


def test_negation_inside_the_object_is_still_read() -> None:
    # the phrase is the object of "without": not stated
    assert find_affirmed("position* encod*", "Without positional encodings the model fails") \
        is None
    assert find_affirmed("scal*", "Without scaling the softmax saturates") is None
    assert find_affirmed("few ... expert*", "the router works without a few experts") is None


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(["Without {x}, {y}.", "Without {x} {y}.", "(b) Without {x}, {y}."]),
       st.sampled_from(["Without {x}, {y}.", "Without {x} {y}."]),
       st.sampled_from(["it", "them", "the loss", "the auxiliary loss", "scaling"]),
       st.sampled_from(["the", "a few", "each"]), st.sampled_from(_CLAIMS), st.booleans())
def test_counterfactual_consequence_opposes_only_when_turned(
        form: str, reference_form: str, x: str, det: str, claim: tuple[str, str, str, str],
        negated: bool) -> None:
    """Said after the same "Without X" as the reference, a negated consequence is its opposite
    and an affirmed one is not; a plain statement of what X prevents is never compared with
    it (the consequence holds only without X)."""
    reference = reference_form.format(x=x, y=_y("the", claim, False))
    answer = form.format(x=x, y=_y(det, claim, negated))
    found = opposite_of([answer], [reference])
    assert (found is not None) is negated, (answer, reference, found)
    plain = f"{x.capitalize()} stops {_y('the', claim, False)}."
    assert opposite_of([answer], [plain]) is None or negated, (answer, plain)
