from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.written.text import normalise, split_sentences


def test_latex_becomes_plain_text() -> None:
    assert normalise(r"$d_{\text{head}} = \frac{d_{\text{model}}}{h}$") == "d_head = d_model/h"
    assert normalise(r"$\sqrt{d_k}$ and $\alpha_a \sim 1$") == "sqrt(d_k) and alpha_a ~ 1"
    assert normalise(r"Sinusoidal PE \Rightarrow fixed") == "Sinusoidal PE -> fixed"
    assert normalise("self-attention has/offers") == "self attention has or offers"
    assert normalise("QK^T/sqrt(d)") == "QK^T/sqrt(d)"


def test_sentences_keep_their_place_in_the_submission() -> None:
    prefix = "Q3 "
    text = "Self-attention ignores order. Sinusoidal PE is fixed.\nRoPE rotates q and k."
    document = prefix + text
    sentences = split_sentences(text, offset=len(prefix))
    assert [s.text for s in sentences] == [
        "Self-attention ignores order.", "Sinusoidal PE is fixed.", "RoPE rotates q and k."]
    for sentence in sentences:
        assert document[sentence.start : sentence.end] == sentence.text


def test_struck_text_is_not_read() -> None:
    sentences = split_sentences("Greedy is ~~globally optimal~~ locally optimal.")
    assert "globally" not in " ".join(s.norm for s in sentences)


def test_display_math_is_one_unit_and_abbreviations_do_not_split() -> None:
    text = "For eg. a line.\n$$y = w_2 (w_1 x + b_1)\n + b_2$$\nvar to be wdy. disp. here"
    sentences = split_sentences(text)
    assert len(sentences) == 3
    assert sentences[1].text.startswith("$$") and sentences[1].text.endswith("$$")


_LOWER_CLAIMS = ["softmax saturates for large logits", "each head attends to other positions",
                 "the gradient shrinks with depth", "beam search keeps k partial sequences"]


@given(st.lists(st.sampled_from(_LOWER_CLAIMS), min_size=2, max_size=4),
       st.sampled_from(["so ", "for example ", "this means ", "it follows that ", "then ", "the "]))
@settings(max_examples=50, deadline=None)
def test_sentences_typed_in_lower_case_are_still_sentences(claims: list[str], lead: str) -> None:
    # answers typed fast, all in lower case: a full stop before a word that starts sentences
    # ends one ("... with depth. so the early layers ..."), an abbreviation before it does not
    text = ". ".join(claims[:1] + [lead + c for c in claims[1:]]) + "."
    assert len(split_sentences(text)) == len(claims)
    assert len(split_sentences(f"the model is mult. by {claims[0]}.")) == 1
