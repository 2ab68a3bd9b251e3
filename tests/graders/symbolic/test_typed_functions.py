"""Functions typed without a backslash (`exp(x)`, `log(x)`, in a rubric's `expected` as much as
in an answer) were read as products of letters, e·x·p·(x): `exp((z_i - z_j)/T)` then differed
from the same answer written `e^{(z_i - z_j)/T}` or `\\exp(...)`, and `exp(z_i - z_j)/T` (the
temperature outside the exponential) equalled it. LaTeX's sizing commands before a bracket
(`\\big(`, `\\Bigl(`) made an expression unreadable. Found by trial homework 4 (decoding)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.symbolic.expressions import subscripts_spelled, tidy
from graders.symbolic.worker import compare

FUNCTIONS = ["exp", "log", "ln", "sin"]
ARGUMENTS = ["z_i - z_j", "x + y", "2 a", "x"]
SIZES = ["", "\\left", "\\big", "\\Big", "\\bigl", "\\Bigg"]


def _verdict(student: str, expected: str) -> str:
    reply = compare({"mode": "equivalent", "student": tidy(student), "expected": tidy(expected),
                     "scalars": [], "aliases": {}})
    return str(reply["verdict"])


def _closing(size: str) -> str:
    return {"\\left": "\\right", "\\bigl": "\\bigr"}.get(size, size)


@settings(max_examples=8, deadline=None)
@given(st.sampled_from(FUNCTIONS), st.sampled_from(ARGUMENTS), st.sampled_from(SIZES),
       st.booleans())
def test_a_function_typed_plain_is_the_function(name: str, argument: str, size: str,
                                                 plain_expected: bool) -> None:
    plain = f"{name}({argument})"
    latex = f"\\{name}{size}({argument}{_closing(size)})"
    expected, student = (plain, latex) if plain_expected else (latex, plain)
    assert _verdict(student, expected) == "equivalent"


def test_the_exponential_is_read_in_every_spelling_students_use() -> None:
    expected = "exp((z_i - z_j)/T)"
    for answer in ["e^{(z_i - z_j)/T}", "e^((z_i-z_j)/T)", "\\exp\\left(\\frac{z_i-z_j}{T}\\right)",
                   "\\frac{\\exp(z_i/T)}{\\exp(z_j/T)}", "e^{z_i/T}/e^{z_j/T}",
                   "\\exp\\big((z_i - z_j)/T\\big)", "exp(z_i/T - z_j/T)"]:
        assert _verdict(answer, expected) == "equivalent", answer
    # the divisor inside the function is not the divisor outside it
    assert _verdict("exp(z_i - z_j)/T", expected) == "different"
    assert _verdict("log(x + y)/T", "log((x + y)/T)") == "different"


def test_a_word_ending_in_a_function_name_is_left_alone() -> None:
    assert "\\" not in tidy("relexp(x)") and "\\" not in tidy("k_exp(x)")


NAMES = ["z_i", "z_j", "k_a", "k_b", "q_1", "x_t"]


@settings(max_examples=8, deadline=None)
@given(st.lists(st.sampled_from(NAMES), min_size=2, max_size=3, unique=True),
       st.sampled_from(["exp(({}) / T)", "{}", "\\beta ({})"]))
def test_a_subscript_written_against_its_name_is_the_expected_name(
        names: list[str], shape: str) -> None:
    """`exp((zi - zj)/T)` for exp((z_i - z_j)/T): OCR and plain typing lose the underscore,
    and `zi` was read as z·i (graded 0 at 0.85)."""
    expected = shape.format(" - ".join(names))
    student = shape.format(" - ".join(n.replace("_", "") for n in names))
    reply = compare({"mode": "equivalent", "expected": tidy(expected), "scalars": [],
                     "aliases": {},
                     "student": subscripts_spelled(tidy(student), expected)})
    assert reply["verdict"] == "equivalent", (student, expected)
    # a name the expected expression does not have is left as written
    assert subscripts_spelled("ka", "q_1 + z_i") == "ka"
