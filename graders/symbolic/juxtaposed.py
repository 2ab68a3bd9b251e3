"""Two notations of products students type without operators, read before the parser sees them.

- Names written against each other (`4dT^2`, `Td`, `Vd`): where the expected expression's
  symbols are single letters, a run of two to four letters that is no name of the expected
  expression and whose every letter is one is their product (`d T^2`). A run with a letter the
  expected expression does not use (`FLOPs`, `exp`), or that it names whole, is left as written.
- Unicode superscripts (`T²`, `d⁻¹`, `10⁶`), typed on phones and copied from PDFs: a power.

String work over an expression of bounded length (the caller's MAX_EXPRESSION), one pass each;
nothing is evaluated.
"""

from __future__ import annotations

import re

_SUPERSCRIPTS = {"⁰": "0", "¹": "1", "²": "2", "³": "3", "⁴": "4", "⁵": "5", "⁶": "6", "⁷": "7",
                 "⁸": "8", "⁹": "9", "⁻": "-", "⁺": "+"}
_SUPERSCRIPT_RUN = re.compile("[" + "".join(_SUPERSCRIPTS) + "]{1,6}")
# a one-letter name of the expected expression (not a command's letters, not a subscript's)
_LETTER = re.compile(r"(?<![\\A-Za-z_{])[A-Za-z](?![A-Za-z])")
_NAMES = re.compile(r"(?<![\\A-Za-z])[A-Za-z]{2,}")
# a run of letters in the answer: not a command (`\cdot`), not a subscript (`k_ab`), not a call
_RUN = re.compile(r"(?<![\\A-Za-z_])[A-Za-z]{2,4}(?![A-Za-z_(])")
_FUNCTIONS = {"exp", "log", "ln", "sin", "cos", "tan", "tanh", "sqrt", "frac", "max", "min"}


def superscripts(expression: str) -> str:
    """`4T²d` -> `4T^{2}d`."""
    return _SUPERSCRIPT_RUN.sub(
        lambda m: "^{" + "".join(_SUPERSCRIPTS[c] for c in m.group(0)) + "}", expression)


def juxtaposed_names(student: str, expected: str) -> str:
    """`4dT^2` -> `4d T^2` where the expected expression's names are the letters d and T."""
    letters = {m.group(0) for m in _LETTER.finditer(expected)}
    whole = {m.group(0) for m in _NAMES.finditer(expected)}
    if len(letters) < 2:
        return student

    def split(m: re.Match[str]) -> str:
        run = m.group(0)
        if run in whole or run.lower() in _FUNCTIONS or not set(run) <= letters:
            return run
        return " ".join(run)

    return _RUN.sub(split, student)
