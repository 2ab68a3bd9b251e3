"""A small, bounded arithmetic evaluator for numbers students write (`3 × 589824`, `768^2`).

Student text is never handed to Python's parser: this module tokenises and evaluates a tiny
grammar itself (numbers, + - * / ^, parentheses, sqrt/exp/ln, e and pi) with exact fractions
where possible and hard bounds on size, so `10^(10^10)` is refused instead of computed.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from fractions import Fraction

Number = Fraction | float

MAX_TOKENS = 120
MAX_DEPTH = 40
MAX_EXPONENT = 64
MAX_BITS = 4096
MAX_MAGNITUDE = 1e300
MAX_DIGITS = 400  # in one number as written


class EvalError(ValueError):
    """The text is not a bounded arithmetic expression."""


@dataclass(frozen=True)
class Token:
    kind: str  # "num", "op", "(", ")", "func", "const", "scale", "%"
    text: str
    value: Number | None = None


_FUNCS = {"sqrt", "exp", "ln", "log"}
# `1.77 million`: a scale word multiplies the number before it; it is notation, not arithmetic
SCALES = {"thousand": 10**3, "million": 10**6, "billion": 10**9, "trillion": 10**12}
_TOKEN = re.compile(r"\s*(?:(?P<num>(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d{1,3}(?![\d.]))?)"
                    r"|(?P<word>[A-Za-z]+)|(?P<sym>[-+*/^()%]))")


def tokenize(text: str) -> list[Token]:
    tokens: list[Token] = []
    pos = 0
    text = text.strip()
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            raise EvalError(f"unexpected {text[pos:pos + 10]!r}")
        pos = m.end()
        if m.group("num"):
            raw = m.group("num")
            tokens.append(Token("num", raw, parse_number(raw)))
        elif m.group("word"):
            word = m.group("word")
            if word in _FUNCS:
                tokens.append(Token("func", word))
            elif word.lower() in SCALES:
                tokens.append(Token("scale", word, Fraction(SCALES[word.lower()])))
            elif word in ("e", "pi"):
                tokens.append(Token("const", word, math.e if word == "e" else math.pi))
            else:
                raise EvalError(f"unknown name {word!r}")
        else:
            sym = m.group("sym")
            kind = sym if sym in "()%" else "op"
            tokens.append(Token(kind, sym))
        if len(tokens) > MAX_TOKENS:
            raise EvalError("expression too long")
    return tokens


def parse_number(raw: str) -> Number:
    """Exact for decimal notation; scientific notation is exact too when it is short."""
    mantissa, _, exponent = raw.lower().partition("e")
    whole, dot, decimals = mantissa.partition(".")
    if len(mantissa) > MAX_DIGITS:
        raise EvalError("number too long")  # and int() of 4,300 digits is a ValueError
    if (whole or decimals) and (not whole or whole.isdigit()) \
            and (not decimals or decimals.isdigit()):
        # Fraction(str) parses with a regex; plain digits are the common case
        value = Fraction(int(whole + decimals or "0"), 10 ** len(decimals)) if dot \
            else Fraction(int(whole))
    else:
        value = Fraction(mantissa)
    if exponent:
        power = int(exponent)
        if abs(power) > 300:
            raise EvalError("exponent out of range")
        value *= Fraction(10) ** power
    return _check(value)


def _check(value: Number) -> Number:
    if isinstance(value, float):
        if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
            raise EvalError("value out of range")
        return value
    if abs(value.numerator).bit_length() > MAX_BITS or value.denominator.bit_length() > MAX_BITS:
        raise EvalError("value too large")
    # Compared with floats everywhere (tolerances, roundings, plausible ranges): an exact value
    # past a float's range (a 400-digit number, 9e300 * 9e300) is out of range like a float's.
    if abs(value) > MAX_MAGNITUDE:
        raise EvalError("value out of range")
    return value


def _power(base: Number, exponent: Number) -> Number:
    if isinstance(exponent, Fraction) and exponent.denominator == 1:
        n = exponent.numerator
        if abs(n) > MAX_EXPONENT and not (isinstance(base, Fraction) and abs(base) in (0, 1)):
            raise EvalError("exponent too large")
        if isinstance(base, Fraction):
            if base == 0 and n < 0:
                raise EvalError("division by zero")
            bits = max(abs(base.numerator).bit_length(), base.denominator.bit_length())
            if bits * abs(n) > MAX_BITS:
                raise EvalError("power too large")
            return _check(base**n)
        return _check(float(base) ** n)
    if abs(float(exponent)) > MAX_EXPONENT:
        raise EvalError("exponent too large")
    if float(base) < 0:
        raise EvalError("fractional power of a negative number")
    try:
        return _check(float(base) ** float(exponent))
    except OverflowError as exc:
        raise EvalError("power too large") from exc


class _Parser:
    def __init__(self, tokens: list[Token]) -> None:
        self.tokens = tokens
        self.pos = 0
        self.depth = 0
        self.operators = 0

    def peek(self) -> Token | None:
        return self.tokens[self.pos] if self.pos < len(self.tokens) else None

    def take(self) -> Token:
        token = self.peek()
        if token is None:
            raise EvalError("unexpected end")
        self.pos += 1
        return token

    def parse(self) -> Number:
        value = self.expr()
        if self.peek() is not None:
            raise EvalError(f"unexpected {self.peek()!r}")
        return value

    def expr(self) -> Number:
        value = self.term()
        while (tok := self.peek()) is not None and tok.kind == "op" and tok.text in "+-":
            self.take()
            self.operators += 1
            right = self.term()
            value = _check(value + right if tok.text == "+" else value - right)
        return value

    def term(self) -> Number:
        value = self.unary()
        while True:
            tok = self.peek()
            if tok is not None and tok.kind == "op" and tok.text in "*/":
                self.take()
                self.operators += 1
                right = self.unary()
                if tok.text == "/":
                    if right == 0:
                        raise EvalError("division by zero")
                    value = _check(value / right)
                else:
                    value = _check(value * right)
            elif tok is not None and tok.kind == "scale" and tok.value is not None:
                self.take()
                value = _check(value * tok.value)
            elif tok is not None and tok.kind in ("(", "func", "const"):
                self.operators += 1  # implicit multiplication: 3(589824), 2pi
                value = _check(value * self.unary())
            else:
                return value

    def unary(self) -> Number:
        tok = self.peek()
        if tok is not None and tok.kind == "op" and tok.text in "+-":
            self.take()
            value = self.unary()
            return -value if tok.text == "-" else value
        return self.power()

    def power(self) -> Number:
        base = self.atom()
        tok = self.peek()
        if tok is not None and tok.kind == "op" and tok.text == "^":
            self.take()
            self.operators += 1
            exponent = self.unary()
            base = _power(base, exponent)
        return base

    def atom(self) -> Number:
        tok = self.take()
        if tok.kind == "num" and tok.value is not None:
            return tok.value
        if tok.kind == "const" and tok.value is not None:
            return tok.value
        if tok.kind == "(":
            self.depth += 1
            if self.depth > MAX_DEPTH:
                raise EvalError("too deeply nested")
            value = self.expr()
            if self.take().kind != ")":
                raise EvalError("missing )")
            self.depth -= 1
            return value
        if tok.kind == "func":
            self.operators += 1
            argument = self.power() if self.peek() is not None else None
            if argument is None:
                raise EvalError("function without argument")
            return _apply(tok.text, argument)
        raise EvalError(f"unexpected {tok.text!r}")


def _apply(name: str, value: Number) -> Number:
    x = float(value)
    if name == "sqrt":
        if x < 0:
            raise EvalError("square root of a negative number")
        root = math.isqrt(int(value)) if isinstance(value, Fraction) and value.denominator == 1 \
            and value >= 0 else None
        if root is not None and root * root == value:
            return Fraction(root)
        return math.sqrt(x)
    if name == "exp":
        if x > 700:
            raise EvalError("exp too large")
        return math.exp(x)
    if x <= 0:
        raise EvalError("logarithm of a non-positive number")
    return math.log(x)


@dataclass(frozen=True)
class Evaluated:
    value: Number
    operators: int  # 0: a plain number as written; more: an expression the student left


def evaluate(text: str) -> Evaluated:
    """Evaluate `text` (already converted from LaTeX) or raise EvalError."""
    tokens = tokenize(text)
    if not tokens:
        raise EvalError("empty")
    parser = _Parser(tokens)
    value = parser.parse()
    return Evaluated(value, parser.operators)
