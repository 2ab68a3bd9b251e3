"""Hypothesis strategies: a value written the ways students write it (digit groups, scientific,
words, unevaluated arithmetic, boxed, vectors in every bracket and as bare lists), inside an
answer with prose around it, at any position, with other numbers nearby."""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import strategies as st

GROUP_SEPARATORS = [",", " ", "\\,", "\\;", "~", "\u2009", "\u202f", "'", "{,}", "\\ "]
LATEX_SEPARATORS = {"\\,", "\\;", "~", "{,}", "\\ "}
UNITS = ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"]
TENS = ["", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
TEENS = ["ten", "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen",
         "eighteen", "nineteen"]


def _grouped(digits: str, separator: str) -> str:
    groups: list[str] = []
    while len(digits) > 3:
        groups.insert(0, digits[-3:])
        digits = digits[:-3]
    groups.insert(0, digits)
    return separator.join(groups)


def words(n: int) -> str | None:
    """English words for 1 <= n < 1000, as students hyphenate or space them."""
    if not 0 < n < 1000:
        return None
    parts: list[str] = []
    hundreds, rest = divmod(n, 100)
    if hundreds:
        parts.append(f"{UNITS[hundreds]} hundred")
    if 10 <= rest < 20:
        parts.append(TEENS[rest - 10])
    elif rest:
        tens, unit = divmod(rest, 10)
        parts.append(TENS[tens] + ("-" + UNITS[unit] if tens and unit else "")
                     if tens else UNITS[unit])
    return " and ".join(parts)


FORMS = ("digits", "grouped", "scientific", "product", "quotient", "boxed", "words", "item")
SCIENTIFIC = ("{m}e{x}", "{m} × 10^{x}", "${m}\\times10^{{{x}}}$", "${m} \\cdot 10^{x}$",
              "{m}*10^{x}")
TIMES = (" × ", " \\times ", "*", " x ", " \\cdot ")
QUOTIENTS = ("{a}/{k}", "${{\\frac{{{a}}}{{{k}}}}}$", "$\\frac{{{a}}}{{{k}}}$")


def render_integer(n: int, form: str, pick: int, exact_forms: tuple[str, ...] = ()) -> str:
    """`n` written one of the ways a student writes an integer; `pick` chooses the variant
    (separator, operator, factor, capitalisation) within the form."""
    if form == "item" and exact_forms:
        return exact_forms[pick % len(exact_forms)]
    spoken = words(n)
    if form == "words" and spoken is not None:
        spoken = spoken.replace("-", "-" if pick % 2 else " ")
        return spoken.capitalize() if pick % 3 else spoken
    if form == "grouped" and n >= 1000:
        separators = [*GROUP_SEPARATORS, "."] if n >= 10**6 else GROUP_SEPARATORS
        separator = separators[pick % len(separators)]
        text = _grouped(str(n), separator)
        return f"${text}$" if separator in LATEX_SEPARATORS else text
    if form == "scientific" and n >= 1000 and n % 10 != 0:
        mantissa = f"{str(n)[0]}.{str(n)[1:]}".rstrip("0")
        return SCIENTIFIC[pick % len(SCIENTIFIC)].format(m=mantissa, x=len(str(n)) - 1)
    if form == "product":
        factors = [k for k in (2, 3, 4, 8, 12, 16) if n % k == 0 and n // k > 1]
        if factors:
            k = factors[pick % len(factors)]
            op = TIMES[pick // len(factors) % len(TIMES)]
            text = f"{k}{op}{n // k}"
            return f"${text}$" if "\\" in op else text
    if form == "quotient":
        k = (2, 3, 12)[pick % 3]
        return QUOTIENTS[pick // 3 % len(QUOTIENTS)].format(a=n * k, k=k)
    if form == "boxed":
        return f"$\\boxed{{{n}}}$"
    return str(n)


def integer_text(n: int, exact_forms: tuple[str, ...] = ()) -> st.SearchStrategy[str]:
    """`n` written one of the ways a student writes an integer (one draw: drawing is most of a
    property's cost)."""
    return st.tuples(st.sampled_from(FORMS), st.integers(0, 59)).map(
        lambda drawn: render_integer(n, drawn[0], drawn[1], exact_forms))


@dataclass(frozen=True)
class Slot:
    """A rubric item and how students label its value."""

    item: str
    labels: tuple[str, ...]  # `{v}` marks the value


D_HEAD = Slot("b1.d_head", (
    "d_head = {v}", "$d_{{head}} = {v}$", "The head dimension is {v}.", "d_head: {v}",
    "**d_head** = {v}", "d_head = d_model / h = 768 / 12 = {v}", "each head has d_head = {v}",
    "Head dimension: {v}", "$d_{{\\text{{head}}}} = \\frac{{d_{{model}}}}{{h}} = {v}$",
))
PER_MATRIX = Slot("b1.per_matrix", (
    "W_Q has {v} weights", "each matrix: {v}", "per matrix = {v}", "Parameters in W_Q: {v}",
    "$W_Q \\in \\mathbb{{R}}^{{768 \\times 768}}$, so {v} parameters each",
    "Each of W_Q, W_K, W_V has {v} weights.", "W_Q: 768 × 768 = {v}",
))
TOTAL = Slot("b1.total", (
    "total = {v}", "W_Q, W_K, W_V together: {v}", "In total {v} weights.", "Total for Q, K, V: {v}",
    "All three together have {v} parameters", "Total = 3 × 589,824 = {v}",
))
NORMALIZER = Slot("b2.normalizer", (
    "sum = {v}", "normalizer: {v}", "The denominator is {v}.", "sum of exponentials ≈ {v}",
    "$\\sum_j e^{{z_j}} = {v}$", "normaliser {v}",
))
VALUES = Slot("b2.values", (
    "softmax = {v}", "softmax([2, 1, 0]) = {v}", "The probabilities are {v}.", "p = {v}",
    "Result: {v}", "{v}", "**Answer:** {v}", "softmax \\approx {v}", "so we get {v}",
))

B1_NEARBY = ("d_model = 768 and h = 12.", "We have 12 heads.", "(no bias terms)",
             "Each head works on 64-dimensional slices.", "Shapes: Q is (n, 768).",
             "Step 2: the projections.", "Note: 768 = 12 × 64.")
B2_NEARBY = ("The input is [2.0, 1.0, 0.0].", "e^2 = 7.389, e^1 = 2.718, e^0 = 1",
             "The exponentials are 7.389, 2.718 and 1.", "Step 1: exponentiate.",
             "The largest logit wins (2.0).", "softmax(x)_i = e^{x_i} / sum_j e^{x_j}")
JOINERS = ("\n", "\n\n", ". ", "; ", "  \n")


@st.composite
def answer(draw: st.DrawFn, slot: Slot, value: str, nearby: tuple[str, ...],
           others: tuple[str, ...] = ()) -> str:
    """The value's statement among prose, other numbers and other items' statements (one
    draw for the whole layout: drawing is most of a property's cost)."""
    pool = list(nearby) + list(others)
    label, chosen, position, joiner = draw(st.tuples(
        st.sampled_from(slot.labels), st.integers(0, 2 ** len(pool) - 1), st.integers(0, 3),
        st.sampled_from(JOINERS)))
    if "$" in label:  # one formula, not a formula inside a formula
        value = value.replace("$", "")
    statement = label.format(v=value)
    if joiner.startswith("."):
        statement = statement.rstrip(".")
    extra = [text for bit, text in enumerate(pool) if chosen >> bit & 1][:3]
    position = min(position, len(extra))
    return joiner.join([*extra[:position], statement, *extra[position:]])


def _decimal(value: float, places: int) -> str:
    return f"{value:.{places}f}"


def probability_text(value: float, form: str) -> str:
    """A probability as a decimal (3 or 4 places, with or without the leading 0) or a percent."""
    if form == "decimal4":
        return _decimal(value, 4)
    if form == "bare" and value < 1:
        return _decimal(value, 3)[1:]
    if form == "percent":
        return _decimal(value * 100, 1) + "%"
    if form == "spaced-percent":
        return _decimal(value * 100, 1) + " %"
    if form == "latex-percent":
        return f"${_decimal(value * 100, 2)}\\%$"
    return _decimal(value, 3)


@st.composite
def vector_text(draw: st.DrawFn, values: tuple[float, ...]) -> str:
    """A vector in brackets, parentheses, a matrix environment, numpy's print or a bare list;
    the elements in one notation, as one student writes them."""
    element, form = draw(st.tuples(
        st.sampled_from(["decimal3", "decimal4", "bare", "percent", "spaced-percent",
                         "latex-percent"]),
        st.sampled_from(["brackets", "parens", "left-right", "numpy", "bmatrix", "pmatrix",
                         "and-list", "semicolons", "rows", "comma-list"])))
    items = [probability_text(v, element) for v in values]
    if form == "numpy" and "%" not in items[0]:
        return "[" + " ".join(items) + "]"
    if form == "bmatrix":
        return "$\\begin{bmatrix} " + " & ".join(items).replace("$", "") + " \\end{bmatrix}$"
    if form == "pmatrix":
        return ("$$\\begin{pmatrix} " + " \\\\ ".join(items).replace("$", "")
                + " \\end{pmatrix}$$")
    if form == "and-list":
        return ", ".join(items[:-1]) + " and " + items[-1]
    if form == "semicolons":
        return "(" + "; ".join(items) + ")"
    if form == "rows":
        return "\n" + "\n".join(items) + "\n"
    if form == "comma-list":
        return ", ".join(items)
    if form == "parens":
        return "(" + ", ".join(items) + ")"
    if form == "left-right":
        return "$\\left[" + ", ".join(items).replace("$", "") + "\\right]$"
    return "[" + ", ".join(items) + "]"
