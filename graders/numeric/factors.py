"""Factors and multiples in answers about scaling and cost, as students write them.

The classes of writing read (each generated in tests/graders/numeric/test_factors.py):
- a multiplier sign after or before a number: `16x`, `16×`, `16\\times`, `x2`, `×16`, `x 16`;
- a number and `times`, `-fold` or `factor of`: `16 times the cost`, `four times as many`,
  `increases 16-fold`, `fourfold`, `by a factor of 4`;
- a verb or adverb: `doubles`, `doubled`, `twice`, `triples`, `quadruples`, `halves`, `halved`;
- a fraction: `a quarter of`, `one-fourth`, `1/4 of`, `half as much`;
- a decrease, read as the reciprocal: `decreases by a factor of 4`, `4x fewer`, `divided by 4`,
  `÷ 4`, `old cost / 4` (generated in tests/graders/numeric/test_division_factors.py).

And the classes that are not factors: a product or a shape (`768 x 768`, `2x2 matrix`, `3 times
589,824`, `d_k x 64`), a variable name (`x2 = W x1`), a gerund naming the cause (`halving the
patch size`), `double-check`.

Every pattern starts at a short literal (a digit, a multiplier sign, a fixed word) and every gap is
bounded, so matching is linear in the text. Nothing here evaluates student text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction

from graders.notation import fold_width
from graders.numeric.latex import read_ocr_digits
from graders.numeric.words import WORD, words_value

MAX_TEXT = 20_000
MAX_READINGS = 200

_DIGITS = r"\d{1,9}(?:\.\d{1,6})?"
# a number in words: `four`, `sixteen`, `twenty-four`, `one hundred`
_WORDS = WORD + r"(?:[ -]" + WORD + r"){0,2}"
# `4^2` (and `4^{2}`): a power is how a squared factor is often shown
_POWER = r"(?:\s?\^\s?\{?\s?(?P<power>\d{1,2})\s?\}?)?"
_NUMBER = rf"(?:(?P<digits>{_DIGITS}){_POWER}|(?P<words>{_WORDS}))"
# `倍` is "times" typed in Chinese or Japanese (`16倍`)
_SIGN = r"(?:[x×X✕倍]|\\times(?![A-Za-z]))"

# `16x`, `16 ×`, `16\times`, `4^2 x`: the sign must not go on to a number or a name (`2x2`,
# `768 x 768`, `2 x d_k`)
_SUFFIX = re.compile(rf"(?<![A-Za-z0-9.^_]){_NUMBER}\s?{_SIGN}(?![A-Za-z0-9_])")
# `x2`, `×16`, `x 16`, `\times 16`: after a word, punctuation or nothing, never after a value
_PREFIX = re.compile(rf"(?<![A-Za-z0-9_]){_SIGN}\s?(?P<digits>{_DIGITS})(?![\w.]\d|[\w])")
_TIMES = re.compile(rf"(?<![A-Za-z0-9_.^]){_NUMBER}[ \t]+times\b", re.IGNORECASE)
_FOLD = re.compile(rf"(?<![A-Za-z0-9_.]){_NUMBER}\s?-?\s?fold\b", re.IGNORECASE)
_FACTOR = re.compile(rf"\bfactor\s(?:of\s)?(?:about\s|around\s|approximately\s|~\s?)?"
                     rf"{_NUMBER}(?![\w.]\d|\w)", re.IGNORECASE)
# `divided by 4`, `÷ 4` (not after a value: `12 ÷ 4 = 3`), `MHA cache / 4` (a name's quarter)
_DIVIDED = re.compile(r"(?:\bdivided\s+by\s+|(?<![\d\]}])(?<![\d\]}][ \t])÷[ \t]?"
                      rf"|(?<=[A-Za-z][ \t])/[ \t]){_NUMBER}(?![\w.]\d|\w)", re.IGNORECASE)
# `multiplies the cost by 4`, `is multiplied by 4`, `scales by 4` (a bounded run of words between)
_MULTIPLIED = re.compile(rf"\b(?:multipl(?:y|ies|ied)|scal(?:es|ed))(?:[ \t]+[\w^]{{1,20}}){{0,4}}?"
                         rf"[ \t]+by[ \t]+{_NUMBER}(?![\w.%]\d|[\w%])", re.IGNORECASE)
# a percentage: `increases by 300%` is 4x, `25% of the cost` is a quarter, and a decrease
# by one, `75% smaller`, `decreases by 75%`, `a 75% reduction`, is what is left: a quarter
_PERCENT = re.compile(r"\b(?:(?P<grow>(?:increas\w*|grows?|grew|goes[ \t]+up|rises?)[ \t]+by[ \t]+)"
                      r"|(?P<shrink>(?:decreas\w*|reduc\w*|shrinks?|shrunk|drops?|dropped|falls?"
                      r"|fell|cut)[ \t]+by[ \t]+))?"
                      r"(?P<percent>\d{1,5}(?:\.\d{1,3})?)[ \t]?%"
                      r"(?(grow)|(?(shrink)|(?:(?=[ \t]+of\b)|[ \t]+"
                      r"(?P<less>smaller|less|fewer|cheaper|lower|reduction)\b)))",
                      re.IGNORECASE)
_VERBS: dict[str, int | Fraction] = {
    "double": 2, "doubles": 2, "doubled": 2, "twice": 2, "triple": 3, "triples": 3, "tripled": 3,
    "thrice": 3, "quadruple": 4, "quadruples": 4, "quadrupled": 4,
    "halve": Fraction(1, 2), "halves": Fraction(1, 2), "halved": Fraction(1, 2)}
_VERB = re.compile(r"\b(?P<verb>" + "|".join(sorted(_VERBS, key=len, reverse=True))
                   + r")\b(?![- ]?(?:check|precision|count))", re.IGNORECASE)
_PARTS = {"half": 2, "third": 3, "quarter": 4, "fourth": 4, "eighth": 8, "sixteenth": 16}
_PART = re.compile(r"\b(?:a|one)[ -](?P<part>half|third|quarter|fourth|eighth|sixteenth)\b"
                   r"|\bhalf\s(?=as\s|of\s)", re.IGNORECASE)
_SLASH = re.compile(r"(?<![A-Za-z0-9_./])(?P<num>\d{1,3})\s?/\s?(?P<den>\d{1,4})(?:th)?"
                    r"(?=\s(?:of|the|as)\b)"
                    r"|\\[dt]?frac\{\s?(?P<fnum>\d{1,3})\s?\}\{\s?(?P<fden>\d{1,4})\s?\}")

# what follows a number and `times` in a product, not a factor: another value or a name
_PRODUCT_AFTER = re.compile(r"\s*(?:\d|\(|\\|[A-Za-z](?:_|\^|\s*[=+*/)]|\s*$|[.,;]|\s+[A-Za-z]\b)"
                            r"|[A-Za-z]_)")
# what stands before a prefix sign in a product or a variable name: a value, a closing bracket,
# a single-letter name, a subscripted name (`W x1`, `d_k × 64`, `(N/P) x 4`)
# (a lone `*`: `**x16**` is Markdown bold)
_PRODUCT_BEFORE = re.compile(r"(?:[\d)\]}+/-]|(?<!\*)\*|(?<![A-Za-z])[A-Za-z]|_\{?\w+\}?"
                             r"|\^\{?\w+\}?)\s*$")
# a sub-part marker right before the sign closes with `)` but is no value: `(b) x16`, `2) ×4`
_MARKER_BEFORE = re.compile(r"(?:^|(?<=[\s:]))\(?(?:[a-hA-H]|[ivx]{1,4}|\d{1,2})\)[ \t]*$",
                            re.MULTILINE)
# after a prefix sign's number: a relation or operator makes it a name in an equation
_EQUATION_AFTER = re.compile(r"\s*(?:[=_^'+/]|\*(?!\*)|-\s*[\w\\])")
# a decrease: a verb in the clause before the factor (`the cost decreases by a factor of 4`,
# `drops 4-fold`), or a comparative right after it (`4x fewer`, `4 times cheaper`, `a 4x
# reduction`); a comparative further on describes something else (`16x with smaller patches`)
_DECREASE_BEFORE = re.compile(r"\b(?:decreas\w*|reduc\w*|shrink\w*|shrunk|drops?|dropp\w*|"
                              r"falls?|fell|lower(?:s|ed)?|cuts?|divid\w*|down)\b", re.IGNORECASE)
# (the sign's math or emphasis may close first: `$16\times$ fewer`, `\(4\times\) cheaper`)
_DECREASE_AFTER = re.compile(r"(?:[\s*$}-]|\\\)){0,4}(?:(?:as|times|the)\s+)?"
                             r"(?:decreas\w*|reduc\w*|smaller|less|fewer|cheaper|lower|shorter|"
                             r"drop)\b", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"[,;:.!?\n(]|\b(?:and|but|so|while|whereas|then|thus|therefore|"
                           r"hence|because|since)\b", re.IGNORECASE)
_WINDOW = 40


@dataclass(frozen=True)
class FactorReading:
    value: Fraction
    start: int
    end: int
    source: str
    words: bool = False  # a verb, a fraction or a number in words
    decrease: bool = False  # a decrease read as the reciprocal (`4x fewer` -> 1/4)


def _number(m: re.Match[str]) -> Fraction | None:
    groups = m.groupdict()
    if groups.get("digits"):
        value = Fraction(groups["digits"])
        power = groups.get("power")
        return value ** int(power) if power else value
    if groups.get("words"):
        spoken = words_value(groups["words"])
        return Fraction(spoken) if spoken is not None else None
    return None


def _clause(text: str, start: int, end: int) -> tuple[str, str]:
    """The words of the clause around a reading: before it (back to a clause break) and after it
    (up to one), each at most `_WINDOW` characters."""
    before = text[max(0, start - _WINDOW):start]
    breaks = list(_CLAUSE_BREAK.finditer(before))
    if breaks:
        before = before[breaks[-1].end():]
    after = text[end:end + _WINDOW]
    cut = _CLAUSE_BREAK.search(after)
    return before, after[:cut.start()] if cut else after


def _multiplier(text: str, m: re.Match[str], kind: str) -> FactorReading | None:
    value = _number(m)
    if value is None or value <= 0:
        return None
    start, end = m.start(), m.end()
    if kind == "prefix":
        window = max(0, start - 12)
        if (_PRODUCT_BEFORE.search(text, window, start)
                and not _MARKER_BEFORE.search(text, window, start)) \
                or _EQUATION_AFTER.match(text, end):
            return None
    elif kind == "suffix":
        if re.match(r"\s?\d", text[end:end + 2]) or re.search(r"[\d)\]}][ \t]*[x×X*]\s?$",
                                                             text[max(0, start - 6):start]):
            return None  # `2 x 2x`, a chain of dimensions
    elif kind == "times" and _PRODUCT_AFTER.match(text, end):
        return None
    words = bool(m.groupdict().get("words"))
    if words and value == 1 and kind == "times":
        return None  # `one time` is not a scaling
    before, after = _clause(text, start, end)
    decrease = value > 1 and bool(_DECREASE_BEFORE.search(before)
                                  or _DECREASE_AFTER.match(after))
    if kind == "divided":
        decrease = True
    return FactorReading(1 / value if decrease else value, start, end, text[start:end].strip(),
                         words, decrease)


def _simple(text: str) -> list[FactorReading]:
    found: list[FactorReading] = []
    for m in _VERB.finditer(text):
        value = Fraction(_VERBS[m.group("verb").lower()])
        found.append(FactorReading(value, m.start(), m.end(), m.group(0), words=True))
    for m in _PART.finditer(text):
        part = (m.group("part") or "half").lower()
        found.append(FactorReading(Fraction(1, _PARTS[part]), m.start(), m.end(),
                                   m.group(0).strip(), words=True))
    for m in _PERCENT.finditer(text):
        share = Fraction(m.group("percent")) / 100
        value = 1 + share if m.group("grow") else \
            1 - share if m.group("shrink") or m.group("less") else share
        if value > 0:
            found.append(FactorReading(value, m.start(), m.end(), m.group(0)))
    for m in _SLASH.finditer(text):
        num, den = (m.group("num"), m.group("den")) if m.group("num") else \
            (m.group("fnum"), m.group("fden"))
        if int(den) and int(num) < int(den):
            found.append(FactorReading(Fraction(int(num), int(den)), m.start(), m.end(),
                                       m.group(0)))
    return found


def _compact(source: str) -> str:
    return "".join(source.split()).lower()


def factor_readings(text: str) -> list[FactorReading]:
    """Every factor the text states, in order of position; overlapping readings keep the
    longest (`a factor of 16` over its `16`)."""
    # OCR's `l6 times cheaper`, `l/l6`: the digits, at the same places
    text = read_ocr_digits(fold_width(text[:MAX_TEXT]))
    found = _simple(text)
    names: set[str] = set()  # `x2` used as a variable somewhere: a variable everywhere
    for pattern, kind in ((_FACTOR, "factor"), (_DIVIDED, "divided"), (_MULTIPLIED, "factor"),
                          (_FOLD, "fold"), (_TIMES, "times"), (_SUFFIX, "suffix"),
                          (_PREFIX, "prefix")):
        for m in pattern.finditer(text):
            reading = _multiplier(text, m, kind)
            if reading is not None:
                found.append(reading)
            elif kind == "prefix":
                names.add(_compact(m.group(0)))
            if len(found) >= MAX_READINGS:
                break
    found = [r for r in found if _compact(r.source) not in names]
    found.sort(key=lambda r: (r.start, -(r.end - r.start)))
    kept: list[FactorReading] = []
    for reading in found:
        if kept and reading.start < kept[-1].end:
            continue
        kept.append(reading)
    return kept
