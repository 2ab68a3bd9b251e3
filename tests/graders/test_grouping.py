"""Answer-group clustering (graders/grouping.py): a partition, deterministic, equal keys
together."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from graders.answer_keys import Answer, normalise_text, parse_numbers
from graders.grouping import answer_key, group_answers

KINDS = ["numeric", "code", "written", "symbolic"]
CONFIG: dict[str, Any] = {"kind": "real", "abs_tolerance": 0.005}

values = st.sampled_from(["64", "64.0", "1,771,776", "1771776", "11.107", "11.1", "0.665",
                          "[0.665, 0.245, 0.09]", "[0.67, 0.24, 0.09]", "5.9 × 10^5", "oops"])
checks = st.lists(st.sampled_from(["square: pass", "square: fail", "single: pass",
                                   "single: error"]), min_size=0, max_size=3)
texts = st.sampled_from(["XOR is not linearly separable.", "xor is NOT linearly separable!!",
                         "A perceptron is linear.", "", "  ", "<script>alert(1)</script>",
                         "Heads attend to different subspaces."])


@st.composite
def answers(draw: st.DrawFn) -> list[Answer]:
    count = draw(st.integers(min_value=0, max_value=30))
    ids = draw(st.lists(st.integers(1, 10_000), min_size=count, max_size=count, unique=True))
    out = []
    for member in ids:
        evidence: list[dict[str, Any]] = [{"kind": "value", "text": draw(values)}]
        evidence += [{"kind": "check", "text": c} for c in draw(checks)]
        document = draw(st.sampled_from(["d1", "d2", "d3"])) + str(draw(st.integers(0, 20)))
        out.append(Answer(member, document, draw(texts), tuple(evidence)))
    return out


def _fake_embed(texts: Sequence[str]) -> NDArray[np.float32]:
    """Vectors that make texts sharing a first letter near-identical (a stand-in model)."""
    rows = []
    for text in texts:
        first = (text.strip()[:1] or " ").lower()
        vector = np.zeros(8, dtype=np.float32)
        vector[ord(first) % 8] = 1.0
        vector[(len(text) % 7) + 1 if ord(first) % 8 == 0 else 0] += 0.01
        rows.append(vector)
    return np.stack(rows) if rows else np.zeros((0, 8), dtype=np.float32)


@settings(max_examples=150, deadline=None)
@given(kind=st.sampled_from(KINDS), batch=answers(), embed=st.booleans())
def test_groups_partition_the_answers_and_equal_keys_share_a_group(
    kind: str, batch: list[Answer], embed: bool
) -> None:
    groups = group_answers(kind, CONFIG, batch, _fake_embed if embed else None)
    members = [m for g in groups for m in g.members]
    assert sorted(members) == sorted(a.member for a in batch)  # every answer exactly once
    where = {m: g.key for g in groups for m in g.members}
    assert len({g.key for g in groups}) == len(groups)
    for a in batch:
        for b in batch:
            if answer_key(kind, CONFIG, a) == answer_key(kind, CONFIG, b):
                assert where[a.member] == where[b.member]
            if a.document == b.document:  # copies of one file are one group
                assert where[a.member] == where[b.member]
    for group in groups:
        assert group.representative in group.members
        assert list(group.members) == sorted(group.members)
    sizes = [len(g.members) for g in groups]
    assert sizes == sorted(sizes, reverse=True)


@settings(max_examples=100, deadline=None)
@given(kind=st.sampled_from(KINDS), batch=answers(), seed=st.randoms(use_true_random=False))
def test_order_and_keys_do_not_depend_on_input_order(kind: str, batch: list[Answer],
                                                     seed: Any) -> None:
    shuffled = list(batch)
    seed.shuffle(shuffled)
    first = group_answers(kind, CONFIG, batch, _fake_embed)
    second = group_answers(kind, CONFIG, shuffled, _fake_embed)
    assert first == second


def test_numeric_values_are_normalised_to_the_tolerance() -> None:
    config = {"kind": "real", "abs_tolerance": 0.005}

    def key(text: str) -> tuple[str, str]:
        value = ({"kind": "value", "text": text},)
        return answer_key("numeric", config, Answer(1, "d", "x", value))

    assert key("11.107") == key("11.1070") == ("value", "11.105")
    assert key("11.1") != key("11.107")
    integers = {"kind": "integer"}
    as_int = [answer_key("numeric", integers, Answer(1, "d", "x", ({"kind": "value", "text": t},)))
              for t in ("1,771,776", "1771776", "1 771 776".replace(" ", "\u2009"))]
    assert len(set(as_int)) == 1 and as_int[0] == ("value", "1771776")
    assert parse_numbers("5.9 × 10^5") == parse_numbers("5.9e5")
    # The grader's reading wins over the text: "768x768" was read as 589824.
    unevaluated = Answer(1, "d", "x", ({"kind": "value", "text": "768x768",
                                        "note": "read as 589824 (final); label: Each:"},))
    assert answer_key("numeric", integers, unevaluated) == ("value", "589824")
    assert parse_numbers("[100,200]", vector=True) == parse_numbers("[100, 200]")


def test_code_groups_by_behaviour_and_written_by_normalised_text() -> None:
    def code(member: int, *verdicts: str) -> Answer:
        return Answer(member, f"doc{member}", f"def f(): return {member}",
                      tuple({"kind": "check", "text": v} for v in verdicts))

    groups = group_answers("code", {}, [code(1, "a: pass", "b: pass"), code(2, "a: pass",
                                         "b: pass"), code(3, "a: pass", "b: fail")])
    assert [g.members for g in groups] == [(1, 2), (3,)]
    assert groups[0].method == "behaviour"
    assert normalise_text("  XOR is NOT   linearly-separable!! ") == "xor is not linearly separable"
    written = group_answers("written", {}, [Answer(1, "a", "XOR is not separable."),
                                            Answer(2, "b", "xor IS NOT separable"),
                                            Answer(3, "c", ""), Answer(4, "d", "Other.")])
    assert [g.members for g in written] == [(1, 2), (3,), (4,)]
    assert written[1].method == "missing"


def test_hostile_text_is_bounded() -> None:
    huge = "1" * 1_000_000 + "," + "2" * 1_000_000
    assert len(parse_numbers(huge)) <= 64
    assert len(normalise_text("a " * 1_000_000)) <= 20_000


def _same(texts: Sequence[str]) -> NDArray[np.float32]:
    """A stand-in model that finds every text identical: only verdicts can keep them apart."""
    return np.ones((len(texts), 4), dtype=np.float32)


# A correct statement and the same words turned around, as students write both: the grader's
# verdicts (elements stated, the opposite flag) differ, however alike the words.
RIGHT = ["Self-attention ignores word order.", "self attention by itself ignores the order",
         "Attention ignores the order of the words, so positions are added."]
TURNED = ["Self-attention does not ignore word order.", "self attention never ignores the order",
          "Attention does not ignore the order of the words, so nothing is added."]
STATED = {"kind": "sentence", "note": "states: self-attention ignores word order"}


@settings(max_examples=60, deadline=None)
@given(right=st.lists(st.sampled_from(RIGHT), min_size=1, max_size=6),
       turned=st.lists(st.sampled_from(TURNED), min_size=1, max_size=6),
       flagged=st.booleans())
def test_answers_the_grader_judged_differently_never_share_a_group(
        right: list[str], turned: list[str], flagged: bool) -> None:
    batch = [Answer(n, f"r{n}", text, (STATED,)) for n, text in enumerate(right)]
    # a turned answer either states no element, or the grader found it and flagged it
    batch += [Answer(100 + n, f"t{n}", text, (STATED,) if flagged else (),
                     "Full credit. The answer may state the opposite of the reference: ..."
                     if flagged else "Not found in the answer: ...")
              for n, text in enumerate(turned)]
    groups = group_answers("written", {}, batch, _same)
    for group in groups:
        kinds = {m >= 100 for m in group.members}
        assert len(kinds) == 1, group
    assert len([g for g in groups if all(m < 100 for m in g.members)]) == 1  # the rest merged
