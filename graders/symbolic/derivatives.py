"""An answer that names the quantity asked for by its definition, a derivative: for a target
`g` declared as `derivative: dL/dz`, the student writes `∂L/∂z = p - y`,
`\\frac{\\partial L}{\\partial z} = ...`, `dL/dz = ...` or `\\nabla_z L = ...`, or one component of
it, `∂L/∂z_j = p_j - y_j`, whose index the other terms share (then read without it: `p - y`).

String work in the grading process only; the expression is parsed in the worker.
"""

from __future__ import annotations

import re
from dataclasses import replace

from graders.notation import fold_width
from graders.symbolic.expressions import Assignment, chain_values

DECLARED = re.compile(r"d([A-Za-z]\w{0,2})/d([A-Za-z]\w{0,2})")
# one component's index: a single letter, as students index vectors
_INDEX = r"(?:_\s*(?:\{\s*(?P<index>[a-z])\s*\}|(?P<bare>[a-z])(?![A-Za-z0-9])))?"
_D = r"(?:\\partial(?![A-Za-z])|∂|\\mathrm\{d\}|d)"
_BOLD = r"(?:\\(?:mathbf|boldsymbol|bm|vec)\s*\{\s*{0}\s*\}}|{0})"


def _patterns(of: str, wrt: str) -> list[re.Pattern[str]]:
    y = _BOLD.replace("{0}", re.escape(of)).replace("}}", "}")
    x = _BOLD.replace("{0}", re.escape(wrt)).replace("}}", "}")
    return [re.compile(p) for p in (
        # \frac{\partial L}{\partial z_j}
        rf"\\[dt]?frac\s*\{{\s*{_D}\s*{y}\s*\}}\s*\{{\s*{_D}\s*{x}\s*{_INDEX}\s*\}}",
        # ∂L/∂z_j, dL/dz, \partial L / \partial z
        rf"(?<![A-Za-z]){_D}\s*{y}\s*/\s*{_D}\s*{x}(?![A-Za-z]){_INDEX}",
        # \nabla_z L, \nabla_{\mathbf{z}} L
        rf"(?:\\nabla|∇)\s*_\s*(?:\{{\s*{x}\s*\}}|{x})\s*{y}(?![A-Za-z])",
    )]


# `&=` in an align environment: its `&` the column marker
_RELATION = re.compile(r"\s*&?\s*(?::=|=(?!=))\s*")


def derivative_assignments(text: str, target: str, declared: str) -> list[Assignment]:
    """Every value the text gives the derivative `declared` (`dL/dz`), as values of `target`."""
    m = DECLARED.fullmatch(declared)
    if m is None:
        return []
    written, text = text, fold_width(text)
    found: list[Assignment] = []
    for pattern in _patterns(m.group(1), m.group(2)):
        for hit in pattern.finditer(text):
            relation = _RELATION.match(text, hit.end())
            if relation is None:
                continue
            index = hit.groupdict().get("index") or hit.groupdict().get("bare")
            for value in chain_values(text, written, target, relation.end()):
                found.append(_component(value, index) if index else value)
    return sorted(found, key=lambda a: a.start)


_NAME = re.compile(r"(?<![\\A-Za-z])([A-Za-z])(_\s*(?:\{[^{}]*\}|\w))?")


def _component(value: Assignment, index: str) -> Assignment:
    """`p_j - y_j` for the j-th component: the vector expression `p - y`, when every term of
    it, and of every sum inside it, has a name with that index (a scalar factor may have none:
    `(p_j - y_j)/T`, `\\frac{1}{T}(p_j - y_j)`, `\\lambda w_j`); a sum over it, another index,
    or a term without it (`p_j - y`) keeps the expression as written."""
    own = re.compile(rf"_\s*(?:\{{\s*{index}\s*\}}|{index}(?![A-Za-z0-9]))")
    subs = [sub for _, sub in _NAME.findall(value.expression) if sub]
    if not subs or any(not own.fullmatch(sub) for sub in subs):
        return value
    if not _every_term_indexed(value.expression, own):
        return value
    return replace(value, expression=own.sub("", value.expression))


def _every_term_indexed(expression: str, own: re.Pattern[str], depth: int = 0) -> bool:
    """Every additive term of `expression` names something with the index, and so does every
    term of each bracketed sum inside it."""
    if depth > 8:
        return False
    for term in _split(expression, "+-"):
        if term.strip() and not any(sub and own.fullmatch(sub)
                                    for _, sub in _NAME.findall(term)):
            return False
        for group in _groups(term):
            if len([t for t in _split(group, "+-") if t.strip()]) > 1 and \
                    not _every_term_indexed(group, own, depth + 1):
                return False
    return True


def _split(text: str, at: str) -> list[str]:
    """`text` cut at the characters `at` outside brackets (and not in a subscript or power)."""
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        if ch in "({[":
            depth += 1
        elif ch in ")}]":
            depth -= 1
        elif ch in at and depth == 0 and not text[:i].rstrip().endswith(("_", "^")):
            parts.append(text[start:i])
            start = i + 1
    return [*parts, text[start:]]


def _groups(term: str) -> list[str]:
    """The insides of the outermost brackets of `term`."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(term):
        if ch in "({[":
            if depth == 0:
                start = i + 1
            depth += 1
        elif ch in ")}]" and depth > 0:
            depth -= 1
            if depth == 0:
                out.append(term[start:i])
    return out
