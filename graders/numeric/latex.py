"""Turn the LaTeX and OCR notation of one expression into the plain arithmetic `arith` reads.

Anything that is not arithmetic (names, words, subscripts, unknown commands) becomes the
separator `SEP`, so `W_Q = 768 \\times 768 (one layer)` yields the run `768*768` and nothing
from `W_Q`. Digit-group separators are removed first (`589,824`, `589 824`, `589\\,824`), which
is why a thousands separator is never read as a list.
"""

from __future__ import annotations

import re
import unicodedata

from graders.numeric.arith import SCALES
from graders.numeric.invisible import skip_invisible

_SCALE_LETTERS = {"K": "thousand", "M": "million", "B": "billion"}
# a unit of operations with its SI prefix (`2.1 GFLOPs`, `3 TFLOP`, `590 kFLOPS`)
_PREFIXED_FLOPS = re.compile(r"([kKmMgGtT])(?i:flops?)")
_PREFIXES = {"k": "thousand", "m": "million", "g": "billion", "t": "trillion"}

SEP = "§"
MAX_SIDE = 600
MAX_BRACES = 40

_THIN = re.compile(r"(?<=\d)(?:\\,|\\ |\\;|\\!|~|\{,\}|[\u2009\u202f\u00a0'])(?=\d{3}(?!\d))")
_SPACE_GROUPS = re.compile(r"(?<![\d.,])([1-9]\d{0,2})((?: \d{3})+)(?![\d,]|\.\d| \d)")
_COMMA_GROUPS = re.compile(r"(?<![\d.,])([1-9]\d{0,2})((?:,\d{3})+)(?![\d]|,\d)")
# 1.769.472: full stops as group separators, unambiguous only with two groups or more
_DOT_GROUPS = re.compile(r"(?<![\d.,])([1-9]\d{0,2})((?:\.\d{3}){2,})(?![\d.]\d|\d)")
# OCR reads a handwritten 0 as O or o and a 1 as l or I inside a comma-grouped count
# (`1,O50,624`, and a leading 1 read as l or I: `l31,O72,OOO`): the groups are digits, so the
# letters are too
_OCR_GROUPS = re.compile(r"(?<![\w.,])(?:[1-9][\dO]{0,2}|[lI](?=[\dO]?\d)[\dO]{1,2})"
                         r"(?:,[0-9OolI]{3}){1,4}(?![\w,])")
_OCR_DIGITS = str.maketrans("OolI", "0011")
# ... and outside such groups, within a number: `2O`, `1O^-4`, `0.O25`, `3.OO`, `O.125` (a
# capital O against a digit or a decimal point; `O2` and `O(n)` are left alone)
_OCR_ZERO = re.compile(r"(?<![\w.])(?=[\dO.]*\d)(?=[\dO.]*O)(?:\d[\dO]*(?:\.[\dO]+)?|O?\.[\dO]+)"
                       r"(?![\w.])")
# ... and any number with a 1 read as l or I in it, and its O's (`l28`, `5l2 MiB`, `l.5 GiB`,
# `2.l5`, `l6OOO`, `l,6lO,6l2,736`; `lO^9`, a power's base; `l/16`; `lO`, `lOO`): a run of
# digits and those letters with a digit in it, starting with a digit or l/I (`O2` is a name),
# a multiplier's x after it (`l28x smaller`); `l1`, `l2` are norms
_OCR_NUMBER = re.compile(r"(?<![\w.,])(?!(?:l|I)[12](?![\w.,]))"
                         r"(?=[\dOlI.,]{0,24}\d)(?=[\dOlI.,]{0,24}[lI])[\dlI][\dOlI.,]{0,24}"
                         r"(?<![.,])(?!(?![xX])\w|[xX]\w)"
                         r"|(?<![\w.,])(?:[lI]O{0,3}(?=\^|[ \t]?/[ \t]?[lI]?\d)"
                         r"|lO{1,3}(?![\w]|[.,]\d))")
_DECIMAL_COMMA = re.compile(r"(?<![\d.,])0,(\d+)(?![\d,])")
# ... a 1 read as l or I after a decimal point (`0.l299`, `0.I25`): the fraction is digits
_OCR_ONE = re.compile(r"(?<![\w.])\d{1,6}\.(?=[\dlI]*\d)(?=[\dlI]*[lI])[\dlI]{1,12}(?![\w.])")
# ... and a number in scientific notation with such letters in its mantissa or exponent
# (`3.6e2l`, `le9`, `l.4e1l`, `7.O7e1O`): a mantissa of digits and l, I, O with a digit or a
# leading l/I, an `e`, an exponent of one to three of them; a letter in it makes it OCR's
_OCR_SCIENTIFIC = re.compile(r"(?<![\w.])(?=[\dlIO.]{0,8}[eE][-+]?[\dlIO]{1,3}(?![\w.]))"
                             r"(?=[\dlIO.]{0,8}[eE][-+]?[\dlIO]{0,2}[lIO]|[\dlIO.]{0,8}[lIO])"
                             r"[\dlI][\dlIO]{0,3}(?:\.[\dlIO]{1,4})?[eE][-+]?[\dlIO]{1,3}"
                             r"(?![\w.])")
# ... and a decimal read with letters only (`O.Ol` for 0.01, `l.O`): O, l or I on both sides
# of one point, standing alone, is no word
_OCR_LETTERS = re.compile(r"(?<![\w.])[OlI]\.[OlI]{1,8}(?!\w|\.\w)")
# ... and a count grouped by spaces with an O in a group (`1 O73 741 824`)
_OCR_SPACE_GROUPS = re.compile(r"(?<![\w.,])[1-9]\d{0,2}(?: (?=[\dO]*\d[\dO]*\d)[\dO]{3}){2,4}"
                               r"(?![\w,]| \d)")
# a decimal comma before a size unit or an exponent (`2,6 GB`, `20,8 GiB`, `-8,03e-4`): no
# list of values and no thousands group (three digits) reads so
_UNIT_DECIMAL_COMMA = re.compile(r"(?<![\d.,])(\d{1,3}),(?=(?:\d{1,2}|\d{4,8})(?:[ \t]?"
                                 r"(?:[kKMGT]i?B|[kmgt]ega|bytes?)\b|[eE][-+]?\d))")


def fold_digits(text: str) -> str:
    """The same text, of the same length, with the decimal digits of every other script (`٦٤`,
    Arabic-Indic; `𝟔𝟒`, mathematical bold; `६४`, Devanagari) as ASCII digits: NFKC and the
    full-width fold leave most of them, and the reader's arithmetic reads ASCII only."""
    if text.isascii():
        return text
    return "".join(ch if ch.isascii() or unicodedata.decimal(ch, None) is None
                   else str(unicodedata.decimal(ch)) for ch in text)


def read_ocr_digits(text: str) -> str:
    """The same text, of the same length, with OCR's letters inside numbers read as the digits
    they stand for and a decimal comma before a unit or an exponent read as a point: the
    numbers' places are kept, so a value is still quoted (and its unit found) where it was
    written."""
    text = _OCR_SCIENTIFIC.sub(lambda m: m.group(0).translate(_OCR_DIGITS), text)
    text = _OCR_GROUPS.sub(lambda m: m.group(0).translate(_OCR_DIGITS), text)
    text = _OCR_SPACE_GROUPS.sub(lambda m: m.group(0).replace("O", "0"), text)
    text = _OCR_ZERO.sub(lambda m: m.group(0).replace("O", "0"), text)
    text = _OCR_ONE.sub(lambda m: m.group(0).translate(_OCR_DIGITS), text)
    text = _OCR_NUMBER.sub(lambda m: m.group(0).translate(_OCR_DIGITS), text)
    text = _OCR_LETTERS.sub(lambda m: m.group(0).translate(_OCR_DIGITS), text)
    return _UNIT_DECIMAL_COMMA.sub(r"\1.", text)
_TIMES_X = re.compile(r"(?<=\d)\s*[xX]\s*(?=\d)")

_SIGNED_EXPONENT = re.compile(r"[ \t]?([-+])[ \t]?(\d{1,3}(?:\.\d{1,3})?)(?![\d.])")
_TYPED_EXPONENT = re.compile(r"[ \t]?(\d{2,3})(?![\d.])")

_GROUP_COMMANDS = {"frac", "dfrac", "tfrac", "cfrac"}
_TEXT_COMMANDS = {"text", "mathrm", "mathbf", "textbf", "mathit", "textit", "operatorname",
                  "mbox", "emph", "mathbb", "mathcal", "textcircled", "underline", "overline",
                  "hat", "bar", "tilde", "vec", "widetilde", "overbrace", "underbrace"}
_SPACES = {",", ";", ":", "!", " ", "quad", "qquad", "left", "right", "big", "Big", "bigg", "Bigg",
           "displaystyle", "limits", "nolimits"}
_OPS = {"times": "*", "cdot": "*", "ast": "*", "div": "/", "pi": "pi", "%": "%",
        "exp": "exp", "ln": "ln", "log": "log"}
_UNICODE = {"×": "*", "·": "*", "∙": "*", "÷": "/", "−": "-", "–": "-", "√": "sqrt",
            "π": "pi"}
_SUPERSCRIPT = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁻", "0123456789-", strict=True))


def glue_digit_groups(text: str) -> str:
    """Remove thousands separators and invisible format characters (`6<U+200B>4` reads 64);
    `0,665` (a decimal comma) becomes `0.665`."""
    text = read_ocr_digits(skip_invisible(text))
    text = _THIN.sub("", text)
    text = _SPACE_GROUPS.sub(lambda m: m.group(1) + m.group(2).replace(" ", ""), text)
    text = _COMMA_GROUPS.sub(lambda m: m.group(1) + m.group(2).replace(",", ""), text)
    text = _DOT_GROUPS.sub(lambda m: m.group(1) + m.group(2).replace(".", ""), text)
    text = _DECIMAL_COMMA.sub(r"0.\1", text)
    return _TIMES_X.sub("*", text)


def brace_depth(text: str) -> int:
    depth = deepest = 0
    escaped = False
    for ch in text:
        if escaped:
            escaped = False
            continue
        if ch == "\\":
            escaped = True
        elif ch == "{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch == "}":
            depth = max(0, depth - 1)
    return deepest


class _Converter:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def group(self) -> str:
        """The next `{...}` group (or single character), converted."""
        while self.pos < len(self.text) and self.text[self.pos] == " ":
            self.pos += 1
        if self.pos >= len(self.text):
            return SEP
        if self.text[self.pos] == "{":
            self.pos += 1
            inner = self.run(stop="}")
            self.pos += 1
            return inner
        if self.text[self.pos] == "\\":
            return self.command()
        ch = self.text[self.pos]
        self.pos += 1
        return self.char(ch)

    def raw_group(self) -> str:
        while self.pos < len(self.text) and self.text[self.pos] == " ":
            self.pos += 1
        if self.pos < len(self.text) and self.text[self.pos] == "{":
            depth, start = 0, self.pos
            while self.pos < len(self.text):
                ch = self.text[self.pos]
                depth += ch == "{"
                depth -= ch == "}"
                self.pos += 1
                if depth == 0:
                    return self.text[start + 1:self.pos - 1]
            return self.text[start + 1:]
        if self.pos < len(self.text):
            self.pos += 1
            return self.text[self.pos - 1]
        return ""

    def command(self) -> str:
        m = re.compile(r"\\([A-Za-z]+|.)").match(self.text, self.pos)
        if m is None:
            self.pos += 1
            return SEP
        self.pos = m.end()
        name = m.group(1)
        if name in _GROUP_COMMANDS:
            numerator = self.group()
            denominator = self.group()
            return f"(({numerator})/({denominator}))"
        if name == "sqrt":
            if self.pos < len(self.text) and self.text[self.pos] == "[":
                return SEP
            return f"sqrt({self.group()})"
        if name == "boxed":
            return f"({self.group()})"
        if name in _TEXT_COMMANDS:
            content = self.raw_group()
            return SEP if re.search(r"[A-Za-z]", content) else f"({glue_digit_groups(content)})"
        if name in _SPACES:
            return " "
        if name in _OPS:
            return f" {_OPS[name]} "
        if name in ("{", "}"):
            return SEP
        return SEP

    def char(self, ch: str) -> str:
        if ch in "0123456789.+-*/()%":
            return ch
        if ch == "[":
            return "("
        if ch == "]":
            return ")"
        if ch == "−" and self.pos < len(self.text) and self.text[self.pos] in "0123456789.":
            return " -"  # the minus sign written against its number is the number's sign
        if ch in _SUPERSCRIPT:  # a typed power: `10⁶`, `2¹⁰`, `10⁻³`
            found = ch
            while self.pos < len(self.text) and self.text[self.pos] in _SUPERSCRIPT \
                    and len(found) < 4:
                found += self.text[self.pos]
                self.pos += 1
            return "^(" + "".join(_SUPERSCRIPT[c] for c in found) + ")"
        if ch in _UNICODE:
            return f" {_UNICODE[ch]} "
        if ch == "^":
            # a signed exponent without braces: `10^-4`, `10^ -3`, `2^+3`
            signed = _SIGNED_EXPONENT.match(self.text, self.pos)
            if signed is not None:
                self.pos = signed.end()
                return f"^({signed.group(1)}{signed.group(2)})"
            if self.text[self.pos:self.pos + 1] == "(":
                return "^"  # `10^(-4)`: the bracket is the exponent's, read as it stands
            typed = _TYPED_EXPONENT.match(self.text, self.pos)
            if typed is not None:
                # a power typed as plain text, `2^31`, `x 10^10`: all its digits are the
                # exponent (TeX's rule, one character, would read 10^1 then 0)
                self.pos = typed.end()
                return f"^({typed.group(1)})"
            return f"^({self.group()})"
        if ch == "_":
            self.group()
            return SEP
        if ch.isspace():
            return " "
        if ch in "eE" and self.pos >= 2 and self.text[self.pos - 2].isdigit() \
                and re.compile(r"[+-]?\d").match(self.text, self.pos):
            return "e"  # scientific notation: 5.9e5
        if ch.isalpha():
            m = re.compile(r"[A-Za-z]*\d*").match(self.text, self.pos)
            word = ch + (m.group(0) if m else "")
            self.pos += len(word) - 1
            start = self.pos - len(word)
            if word in ("e", "g") and (self.text[start - 1:start] == "."
                                       or self.text[self.pos:self.pos + 1] == "."):
                return SEP  # `i.e. 64`, `e.g. 64`: an abbreviation, not the constant e
            if word in ("e", "pi", "sqrt", "exp", "ln", "log"):
                return f" {word} "
            prefixed = _PREFIXED_FLOPS.fullmatch(word)
            if prefixed and re.search(r"\d[ \t]{0,3}$", self.text[max(0, start - 4):start]):
                return f" {_PREFIXES[prefixed.group(1).lower()]} "
            if word in _SCALE_LETTERS and self.text[self.pos - 2].isdigit():
                return f" {_SCALE_LETTERS[word]} "  # `1.05M`, `590K`, `1.2B` (against the digit)
            if word == "k" and self.text[self.pos - 2].isdigit() \
                    and not re.match(r"[_^(\w]|\s*[*/+=^-]", self.text[self.pos:self.pos + 3]):
                return " thousand "  # `16k`, `32k tokens`; not `2k + 1`, `4k_1`
            return f" {word.lower()} " if word.lower() in SCALES else SEP
        return SEP

    def run(self, stop: str = "") -> str:
        out: list[str] = []
        while self.pos < len(self.text):
            ch = self.text[self.pos]
            if stop and ch == stop:
                break
            if ch == "\\":
                out.append(self.command())
            elif ch == "{":
                out.append(f"({self.group()})")
            elif ch == "}":
                self.pos += 1
                out.append(SEP)
            else:
                self.pos += 1
                out.append(self.char(ch))
        return "".join(out)


def to_arith(side: str) -> str | None:
    """The arithmetic reading of one side of a relation, or None when it is too big to try."""
    if len(side) > MAX_SIDE or brace_depth(side) > MAX_BRACES:
        return None
    return _Converter(glue_digit_groups(side)).run()
