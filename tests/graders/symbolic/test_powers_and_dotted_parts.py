"""Two ways trial 9's students wrote a formula: Python's power with a bracketed exponent, `s = m /
(2**(b-1) - 1)` (a .py file's comment, a transcript), and sub-parts marked `a.`, `b:` or `ii.`
opening the lines, `a. N = r * (d_in + d_out)` / `b. s = ...`. Before, `**` became `^` only
after `^(...)` had been braced, so `2^(b-1)` stayed unreadable (review at 0.28), and a target
after `a.` was no left-hand side at all ("no expression for N was found")."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.symbolic.expressions import find_assignments, tidy
from graders.symbolic.worker import compare

PROPERTY = settings(max_examples=40, deadline=None, database=None, derandomize=True)

EXPONENTS = ["b - 1", "b-1", "n + 1", "k/2", "2 b"]
BASES = ["2", "x", "(a + 1)"]


def _verdict(student: str, expected: str) -> str:
    reply = compare({"mode": "equivalent", "student": tidy(student), "expected": tidy(expected),
                     "scalars": [], "aliases": {}})
    return str(reply["verdict"])


@PROPERTY
@given(st.sampled_from(BASES), st.sampled_from(EXPONENTS), st.sampled_from(["m / ({p} - 1)",
                                                                              "{p}", "r {p}"]))
def test_a_python_power_is_the_power(base: str, exponent: str, shape: str) -> None:
    student = shape.format(p=f"{base}**({exponent})")
    expected = shape.format(p=f"{base}^{{{exponent}}}")
    assert _verdict(student, expected) == "equivalent", (student, tidy(student))


MARKERS = [("a.", "b."), ("a:", "b:"), ("i.", "ii."), ("A.", "B.")]
FIRST = ["r * (d_in + d_out)", "d_in r + r d_out", "r(d_in + d_out)"]
SECOND = ["m / (2**(b-1) - 1)", "m / (2^{b-1} - 1)", "m/(2^(b-1)-1)"]


@PROPERTY
@given(st.sampled_from(MARKERS), st.sampled_from(FIRST), st.sampled_from(SECOND),
       st.sampled_from(["", "  ", "\t"]))
def test_a_target_after_a_dotted_marker_opening_its_line_is_assigned(
        markers: tuple[str, str], first: str, second: str, indent: str) -> None:
    text = f"Q6.\n{indent}{markers[0]} N = {first}\n{indent}{markers[1]} s = {second}"
    assert [a.expression for a in find_assignments(text, "N")] == [first], text
    assert [a.expression for a in find_assignments(text, "s")] == [second], text


def test_a_letter_ending_a_sentence_is_no_marker() -> None:
    assert find_assignments("we divide by a. N = 5 here", "N") == []
