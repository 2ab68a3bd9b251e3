"""Answers to scaling questions, generated: each class of real writing of a factor (`16x`, `x16`,
`16 times`, `16-fold`, `by a factor of 16`, `quadruples`, `a quarter of`, a decrease), the classes
that are not factors (shapes, products, variable names, gerunds), and "intermediate then final"
("4x as many patches, so the cost grows 16x"), with explanation around them. Used by the property
tests and by the scaling battery (benchmarks/scaling.py).
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from hypothesis import assume
from hypothesis import strategies as st

from tests.graders.numeric.renderings import words


@dataclass(frozen=True)
class FactorClass:
    name: str
    templates: tuple[str, ...]  # `{n}`: the number as this class writes it
    low: int
    high: int
    in_words: bool = False  # the number is written in words
    reciprocal: bool = False  # a decrease or a fraction: the factor is 1/n

    def write(self, n: int) -> str:
        return str(n) if not self.in_words else (words(n) or str(n))

    def value(self, n: int) -> Fraction:
        return Fraction(1, n) if self.reciprocal else Fraction(n)


# each template names the cost, as the final factor of an answer does
CLASSES = (
    FactorClass("suffix sign", ("the cost grows {n}x", "{n}× the compute", "it is {n}x more "
                                "expensive", "attention costs {n} x as much", "roughly "
                                "{n}\\times the FLOPs", "cost ({n}x)", "cost: {n}X",
                                "the cost is **{n}x**", "计算量变为原来的{n}倍"), 2, 64),
    FactorClass("prefix sign", ("cost: x{n}", "the attention cost goes x{n}", "compute ×{n}",
                                "attention cost x {n}", "the FLOPs grow by x{n}",
                                "cost \\times {n}", "cost: **x{n}**"), 2, 64),
    FactorClass("times", ("{n} times the cost", "the cost is {n} times as high", "{n} times "
                          "more compute"), 2, 64),
    FactorClass("times in words", ("{n} times the cost", "the attention cost is {n} times as "
                                   "large"), 2, 20, in_words=True),
    FactorClass("fold", ("a {n}-fold increase in cost", "the cost increases {n}-fold",
                         "compute grows {n} fold"), 2, 64),
    FactorClass("factor of", ("the cost grows by a factor of {n}", "a factor {n} more compute",
                              "attention cost increases by a factor of about {n}"), 2, 64),
    FactorClass("multiplied by", ("doubling n multiplies the cost by {n}", "the compute is "
                                  "multiplied by {n}", "attention cost scales by {n}"), 2, 64),
    FactorClass("decrease", ("the cost decreases by a factor of {n}", "{n}x fewer FLOPs",
                             "it is {n}x cheaper", "the cost is divided by {n}",
                             "compute drops {n}-fold"), 2, 64, reciprocal=True),
    FactorClass("fraction", ("1/{n} of the cost", "the cost falls to \\frac{{1}}{{{n}}} of the "
                             "FLOPs"), 2, 16, reciprocal=True),
)

# verbs, adverbs and named fractions: fixed words for fixed factors
FIXED = (
    ("the cost doubles", Fraction(2)), ("compute is doubled", Fraction(2)),
    ("twice the cost", Fraction(2)), ("the cost triples", Fraction(3)),
    ("the attention cost quadruples", Fraction(4)), ("cost is quadrupled", Fraction(4)),
    ("the cost halves", Fraction(1, 2)), ("compute is halved", Fraction(1, 2)),
    ("a quarter of the cost", Fraction(1, 4)), ("one-fourth of the FLOPs", Fraction(1, 4)),
    ("half as much compute", Fraction(1, 2)),
)

# explanation around an answer: no factor in any of it
EXPLANATIONS = (
    "Attention compares every pair of positions.", "Each head has d_k = 64 dimensions.",
    "The score matrix QK^T is n x n.", "With x2 = W x1 the projections do not change.",
    "Every 2x2 block is computed once.", "We use 12 heads of size 64.",
    "Halving the patch size changes the sequence length.", "The MLP is linear in n.",
    "Double-check the shapes: Q is n x d_k.", "",
)

# not factors: shapes, products, variable names, causes
NOT_FACTORS = (
    "a {a} x {b} matrix", "the {a}x{b} grid", "x{a} = W x{b}", "d_k x {a}", "{a} times {big:,}",
    "halving the patch size", "double-check the {a} heads", "W \\times {a}", "{a} \\times {b}",
    "Q \\in R^{{n x {a}}}", "x{a} + x{b} is the sum", "({a}x{b}) blocks", "N x {a} tokens",
    "let x{a} be the input; then x{a} = W x{b}",
)

# the factor an explanation passes through before its conclusion
INTERMEDIATES = ("{m}x as many patches", "{m} times as many tokens",
                 "the number of tokens grows {m}-fold", "the sequence is {m}x longer")
MARKERS = (", so", "; therefore", ". Thus", ", hence", " →", ". Overall,", ". In total,",
           ", which means")
# the intermediate factor as a premise or a cause of the final one
LAYOUTS = ("{intermediate}{marker} {final}.", "Since {intermediate}, {final}.",
           "If {intermediate}, then {final}.", "{final}, because {intermediate}.",
           "{final} since {intermediate}.", "{final}, not {intermediate}.")

COST_CUES = ("cost", "compute", "flops", "attention")
AVOID_CUES = ("patches", "tokens", "sequence")


@dataclass(frozen=True)
class Answer:
    text: str
    value: Fraction | None  # the factor the answer concludes with; None: it states none
    kind: str


def factor_phrase(klass: FactorClass, template: str, n: int) -> str:
    return template.format(n=klass.write(n))


_VARIABLE = re.compile(r"\bx\d+\b")


def _clashes(explanation: str, body: str) -> bool:
    """The explanation names a variable (`x2 = W x1`) that the factor is also written as (`x2`):
    a name used as a variable is read as one everywhere (graders.numeric.factors), so such an
    answer states no factor. Not a text of the class these strategies generate."""
    return any(re.search(rf"\b{name}\b", body) for name in _VARIABLE.findall(explanation))


@st.composite
def stated_factors(draw: st.DrawFn) -> Answer:
    """One factor, in any class, with explanation before and after it."""
    before, after = draw(st.sampled_from(EXPLANATIONS)), draw(st.sampled_from(EXPLANATIONS))
    if draw(st.booleans()):
        klass = draw(st.sampled_from(CLASSES))
        n = draw(st.integers(klass.low, klass.high))
        phrase, value = factor_phrase(klass, draw(st.sampled_from(klass.templates)), n), \
            klass.value(n)
        kind = klass.name
    else:
        phrase, value = draw(st.sampled_from(FIXED))
        kind = "fixed words"
    assume(not _clashes(f"{before} {after}", phrase))
    return Answer(f"{before} So {phrase}. {after}".strip(), value, kind)


@st.composite
def non_factors(draw: st.DrawFn) -> Answer:
    template = draw(st.sampled_from(NOT_FACTORS))
    a, b = draw(st.integers(2, 99)), draw(st.integers(2, 99))
    text = template.format(a=a, b=b, big=draw(st.integers(1000, 10**7)))
    return Answer(f"{draw(st.sampled_from(EXPLANATIONS))} {text}".strip(), None, "not a factor")


@st.composite
def intermediate_then_final(draw: st.DrawFn) -> Answer:
    m = draw(st.integers(2, 16))
    klass = draw(st.sampled_from([c for c in CLASSES if not c.reciprocal]))
    n = draw(st.integers(klass.low, klass.high).filter(lambda n: n != m))
    final = factor_phrase(klass, draw(st.sampled_from(klass.templates)), n)
    intermediate = draw(st.sampled_from(INTERMEDIATES)).format(m=m)
    body = draw(st.sampled_from(LAYOUTS)).format(intermediate=intermediate, final=final,
                                                  marker=draw(st.sampled_from(MARKERS)))
    explanation = draw(st.sampled_from(EXPLANATIONS))
    assume(not _clashes(explanation, body))
    text = f"{explanation} {body}"
    return Answer(text.strip(), klass.value(n), "intermediate then final")


def battery(count: int, seed: int = 28) -> list[Answer]:
    """A fixed sample of the same classes (for measurements that must repeat exactly)."""
    rng = random.Random(seed)
    strategies: list[Callable[[], Answer]] = []
    for klass in CLASSES:
        def one(klass: FactorClass = klass) -> Answer:
            n = rng.randint(klass.low, klass.high)
            phrase = factor_phrase(klass, rng.choice(klass.templates), n)
            return Answer(f"{rng.choice(EXPLANATIONS)} So {phrase}. {rng.choice(EXPLANATIONS)}"
                          .strip(), klass.value(n), klass.name)
        strategies.append(one)

    def fixed() -> Answer:
        phrase, value = rng.choice(FIXED)
        return Answer(f"{rng.choice(EXPLANATIONS)} {phrase}.".strip(), value, "fixed words")

    def chained() -> Answer:
        m = rng.randint(2, 16)
        klass = rng.choice([c for c in CLASSES if not c.reciprocal])
        n = rng.choice([k for k in range(klass.low, klass.high + 1) if k != m])
        final = factor_phrase(klass, rng.choice(klass.templates), n)
        text = rng.choice(LAYOUTS).format(intermediate=rng.choice(INTERMEDIATES).format(m=m),
                                          final=final, marker=rng.choice(MARKERS))
        return Answer(text, klass.value(n), "intermediate then final")

    def negative() -> Answer:
        text = rng.choice(NOT_FACTORS).format(a=rng.randint(2, 99), b=rng.randint(2, 99),
                                              big=rng.randint(1000, 10**7))
        return Answer(f"{rng.choice(EXPLANATIONS)} {text}".strip(), None, "not a factor")

    strategies += [fixed, chained, chained, negative]
    return [rng.choice(strategies)() for _ in range(count)]
