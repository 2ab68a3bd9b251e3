"""Finding `q = ...` (or `q_1 = ...`) in OCR prose and LaTeX, and tidying it for the parser.

Everything here is string work in the grading process; parsing happens in the worker.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from graders.notation import (
    expand_set_sums,
    fold_width,
    norm_names,
    skip_invisible,
    standard_mu,
)
from graders.symbolic.juxtaposed import superscripts
from graders.symbolic.shorthand import braced

MAX_EXPRESSION = 400
MAX_NESTING = 30

_UNICODE = {
    "α": r"\alpha ", "β": r"\beta ", "γ": r"\gamma ", "λ": r"\lambda ", "μ": r"\mu ",
    "µ": r"\mu ",  # U+00B5, the micro sign, which keyboards type for mu
    "θ": r"\theta ", "σ": r"\sigma ", "Σ": r"\Sigma ", "√": r"\sqrt ", "·": r"\cdot ",
    "×": r"\times ", "−": "-", "–": "-", "—": "-", "≫": r"\gg ", "≈": r"\approx ", "∞": r"\infty ",
}
_GREEK = r"alpha|beta|gamma|delta|lambda|mu|theta|sigma|kappa|eta|omega|tau|phi|psi|rho|nu"


@dataclass(frozen=True)
class Assignment:
    target: str
    expression: str  # the right-hand side as written
    start: int  # span of the right-hand side in the text
    end: int


def target_pattern(target: str) -> str:
    """`q` -> q not followed by a subscript; `q_1` -> q_1, q_{1}; `mu_a` -> \\mu_a, μ_a."""
    base, _, sub = target.partition("_")
    head = r"(?:\\(?:mu|micro|upmu|textmu|muup)(?![A-Za-z])|μ|µ)" if base == "mu" else (
        rf"(?:\\{base}|{_UNICODE_REVERSE.get(base, base)})" if re.fullmatch(_GREEK, base)
        else re.escape(base))
    # a bold or vector wrapper around the name: \mathbf{q}, \boldsymbol{q}, \vec{q}, bold(q)
    head = _WRAPPED.format(head)
    if sub:
        return head + rf"_\s*(?:\{{\s*{re.escape(sub)}\s*\}}|{re.escape(sub)}(?![\w]))"
    return head + r"(?![\w_'{])"


_WRAPPED = (r"(?:\\(?:mathbf|boldsymbol|bm|vec|mathbold|mathit)\s*\{{\s*{0}\s*\}}"
            r"|bold\(\s*{0}\s*\)|{0})")


_UNICODE_REVERSE = {"alpha": "α", "beta": "β", "gamma": "γ", "lambda": "λ", "mu": "μ",
                    "theta": "θ", "sigma": "σ"}

# `s &= ...`: an align environment's relation, its `&` the column marker
_RELATION = r"\s*&?\s*(?::=|=|\\approx|≈|\\sim(?![a-z])|\\simeq|∼)\s*"
# What may stand just before the target for it to be the whole left-hand side.
_LEFT_OK = re.compile(
    # a sub-part's marker before it: `(b) s = ...`, `b) s = ...`
    r"(?:^|[$(,:;&\n]|=>|->|[⇒→∴]|\\(?:Rightarrow|implies|therefore|to|quad|qquad|[,;])|\}|"
    r"(?:^|\s)\(?(?:[a-h]|[ivx]{1,4})\)|\*\*|__|(?:^|\n)[ \t]*Q?\d{1,2}[-.]?[a-h][.):]?|"
    # ... or opening its line as `a.`, `b:`, `ii.` (a letter and a full stop mid-sentence is
    # no marker: "the value of a. N = ..." is not one)
    r"(?:^|\n)[ \t]*(?:[a-hA-H]|[ivx]{1,4}|[IVX]{1,4})[.:]|"
    r"[A-Za-z]{2,}\.?|"
    r"\\text\{[^{}]*\}|(?:^|[\s$])(?:\\(?:mathbf|boldsymbol|bm|vec)\s*\{\s*[A-Za-z]\s*\}|[A-Za-z])"
    r"_\s*(?:\{\w+\}|\w)\s*=)\s*$"
)
_STOP = re.compile(
    # the next sub-part's marker after a space: `g = (p - y)/T   (b) h = ...`
    r"\s\(?[a-h]\)(?=\s)|"
    r"\\\\|\$|\n|\\q?quad\b|\\text\b|\\(?:Rightarrow|implies|rightarrow|to|approx|sim|gg|ll|"
    r"text|quad|forall|iff|in|notin|ni|mid)\b|=|≈|→|⇒|(?<!\\),(?!\d{3}(?!\d))|;|\s(?:b/c|where|with|for|since|s\.t\.|and|so|"
    r"because|which|if)\b|"
    r"\s(?!(?:" + _GREEK + r"|sqrt|frac|exp|log|sin|cos|tan|tanh|cdot|times)\b)[A-Za-z]{3,}\b"
    r"(?![_^{])"
)


# `k_i^\top q = 0`: the target is the second factor of a product, not the left-hand side
_FACTOR_BEFORE = re.compile(
    r"(?:\^\s*\{?\s*(?:\\top|T|\\intercal|\\mathsf\{T\}|⊤)\s*\}?|\\cdot|(?<!\*)\*|·)\s*$"
)
_SIMPLE_NAME = (r"(?:\\(?:mathbf|boldsymbol|bm|vec|mathbold|mathit)\s*\{\s*\\?[A-Za-z]+\s*\}"
                r"|bold\(\s*\\?[A-Za-z]+\s*\)|\\?[A-Za-z]+)(?:_\s*(?:\{[^{}]*\}|\w))?")


def find_assignments(text: str, target: str) -> list[Assignment]:
    """Every `target = expression` in the text. Full-width punctuation (`，`, `（）`) is read as
    its ASCII form; the expression is quoted as written."""
    written, text = text, fold_width(text)
    found: list[Assignment] = []
    pattern = re.compile(target_pattern(target) + _RELATION)
    for m in pattern.finditer(text):
        before = text[max(0, m.start() - 40):m.start()]
        subscript = before.endswith("_") and not before.endswith("__")  # `__` opens bold
        if before.endswith(("\\|", "|", "^")) or subscript or _FACTOR_BEFORE.search(before):
            continue
        stripped = before.rstrip()
        # the target opens its line (the line before may end in anything: "(sum of d_k terms)")
        opens_line = "\n" in before and not before.rpartition("\n")[2].strip()
        if stripped and not opens_line and not _LEFT_OK.search(stripped):
            continue
        found.extend(chain_values(text, written, target, m.end()))
    return found


def chain_values(text: str, written: str, target: str, start: int) -> list[Assignment]:
    """The values a chain of equalities gives its target, in order: `q_1 = q_2 = beta(u_a +
    u_b)` gives the last (a bare name is no value), and `g = -sum_i y_i (delta_ij - p_j) = p - y`
    gives each link (the last, the chain's conclusion, is graded first); a later link that is
    only a number (`c = 1/sqrt(64) = 0.125`) is a value of the expression, not another one."""
    found: list[Assignment] = []
    while True:
        end = _rhs_end(text, start)
        chained = _LINK.match(text, end)
        # a LaTeX space or line break (`\;`, `\\`) cut at its second character leaves a backslash
        expression = _EMPHASIS_END.sub("", text[start:end].strip().rstrip(".,;").rstrip("\\"))
        expression = expression.rstrip().rstrip(".,;").rstrip()
        expression = _REMARK.sub("", _drop_condition(expression))
        # a bare name or the derivative again, with the chain going on, only names the target
        named = chained is not None and (re.fullmatch(_SIMPLE_NAME, expression) is not None
                                         or _names_a_derivative(expression))
        if expression and not named and (not found or re.search(r"[A-Za-z]", expression)):
            found.append(Assignment(target, written[start:start + len(expression)], start,
                                    start + len(expression)))
        if chained is None or len(found) >= MAX_LINKS:
            return found
        start = chained.end()


MAX_LINKS = 6
# Markdown emphasis closing the answer (`**L = HW/P^2 + 1**`, `*N = ...*`, `__s = ...__`):
# formatting, no power; a starred name (`w^*`, `x_*`) keeps its star
_EMPHASIS_END = re.compile(r"(?<![\^_*])(?:\*{1,3}|__)\s*$")
# `p - y (the softmax output minus the target)`: a remark in words after the expression
_REMARK = re.compile(r"\s+\((?=[^()]*\b[A-Za-z]{3,}\s+[A-Za-z]{2,})[^()]*\)\s*$")
# the next link of a chain; in an align environment on the next row (`\\ &= ...`)
_LINK = re.compile(r"\s*(?:\\\\\s*)?&?\s*=\s*(?!=)")
# `\frac{\partial L}{\partial z}`, `dL/dz`, `\nabla_z L`: a link that names the quantity again
_OPERAND = r"(?:\\(?:mathbf|boldsymbol|bm|vec)\s*\{\s*\w{1,3}\s*\}|\w{1,3})"
_BRACED = r"(?:[^{}]|\{[^{}]*\}){1,24}"  # one level of braces inside: `d\mathbf{z}`
_DERIVATIVE_NAME = re.compile(
    rf"\\[dt]?frac\s*\{{\s*(?:\\partial|∂|d){_BRACED}\}}\s*\{{\s*(?:\\partial|∂|d){_BRACED}\}}"
    rf"|(?:\\partial|∂|d)\s*{_OPERAND}\s*/\s*(?:\\partial|∂|d)\s*{_OPERAND}(?:_\s*\{{?\w{{1,3}}\}}?)?"
    rf"|(?:\\nabla|∇)\s*_\s*(?:\{{{_BRACED}\}}|\w)\s*\w{{1,3}}"
)


def _names_a_derivative(expression: str) -> bool:
    return _DERIVATIVE_NAME.fullmatch(expression.strip()) is not None


def _rhs_end(text: str, start: int) -> int:
    depth = 0
    i = start
    limit = min(len(text), start + MAX_EXPRESSION)
    while i < limit:
        ch = text[i]
        if ch == "\\" and i + 1 < limit and text[i + 1] in "{}|":
            i += 2
            continue
        if ch in "{([":
            depth += 1
        elif ch in "})]":
            if depth == 0:
                return i
            depth -= 1
        elif depth == 0:
            m = _STOP.match(text, i)
            if m and i > start:
                return i
        i += 1
    return i


def _drop_condition(expression: str) -> str:
    """`\\beta(k_a + k_b) (\\beta \\gg 0)` -> `\\beta(k_a + k_b)`."""
    return re.sub(r"\s*\((?:[^()]*\\gg|[^()]*>)[^()]*\)\s*$", "", expression).strip()


def tidy(expression: str) -> str:
    """Unicode and plain-text spellings to LaTeX the parser reads; spacing normalised."""
    # Python's power first: `2**(b - 1)` is `2^{b - 1}` as `2^(b - 1)` is
    # invisible characters copied in (`\\sqrt{6<U+200B>4}`) are skipped; a direction override,
    # which shows the expression in another order, is not (it is not read: a reader decides)
    out = fold_width(skip_invisible(expression, overrides=False)).replace("**", "^")
    out = braced(expand_set_sums(standard_mu(superscripts(out))))
    for char, latex in _UNICODE.items():
        out = out.replace(char, latex)
    out = re.sub(rf"(?<![\\A-Za-z])({_GREEK})(?![A-Za-z])", r"\\\1", out)
    out = re.sub(r"\bsqrt\s*\(([^()]*)\)", r"\\sqrt{\1}", out)
    if not _DERIVATIVE_D.search(out):
        out = _LONE_D.sub("{d}", out)
    # exp(x), log(x) typed without a backslash are the functions, not the letters e·x·p (which
    # made `exp(a)/T` equal to `exp(a/T)`, and `exp(a)` differ from `e^{a}`)
    # `cos[m theta]`: square brackets around a function's argument are its parentheses
    out = _SQUARE_CALL.sub(lambda m: f"\\{m.group(1)}({m.group(2)})", out)
    out = _PLAIN_FUNCTION.sub(r"\\\1", out)
    # `cos m\theta`, `\sin n \theta`: a trig function's argument written without brackets is
    # the product of names that follows it, up to the next operator or function
    out = _BARE_TRIG.sub(lambda m: f"\\{m.group(1)}({m.group(2).strip()}) ", out)
    # sizing commands before a delimiter: `\big(`, `\Bigr)`, `\bigg[`
    out = re.sub(r"\\[Bb]igg?[lrm]?(?![A-Za-z])\s*", "", out)
    out = re.sub(r"\\(?:left|right)(?=[()\[\].|])", "", out)
    out = re.sub(r"\\(?:left|right)\\?([{}])", r"\1", out)
    out = re.sub(r"\\[,;!]|\\q?quad\b|~", " ", out)
    # d_model (plain) is one name, as d_{model} is: give multi-letter subscripts braces
    out = re.sub(r"(?<=[A-Za-z])_([A-Za-z]{2,})\b", r"_{\1}", out)
    out = re.sub(r"\\(?:text|mathrm|mathit|operatorname|mathbf|boldsymbol|bm|vec|mathbold)"
                 r"\s*\{([^{}]*)\}", r"\1", out)
    out = re.sub(r"\bbold\(\s*([^()]*)\)", r"\1", out)  # Typst
    out = norm_names(out)
    # \gamma(x) would be read as the Gamma function: a Greek scale factor multiplies
    out = re.sub(rf"\\({_GREEK})\s*\(", r"\\\1 \\cdot (", out)
    return re.sub(r"\s+", " ", out).strip()


_SUBSCRIPTED = re.compile(r"(?<![\\A-Za-z])([A-Za-z])_\{?([A-Za-z0-9])\}?(?![A-Za-z0-9])")


def subscripts_spelled(student: str, expected: str) -> str:
    """`zi - zj` for `z_i - z_j`: a one-letter subscript written against its one-letter name (how
    OCR and plain typing lose the underscore) is the expected expression's name, where the
    expected expression has that name and the answer never writes it with the underscore."""
    names = {m.group(1) + m.group(2) for m in _SUBSCRIPTED.finditer(expected)}
    written = {m.group(1) + m.group(2) for m in _SUBSCRIPTED.finditer(student)}
    for name in sorted(names - written):
        student = re.sub(rf"(?<![\\A-Za-z0-9_]){name}(?![A-Za-z0-9_])",
                         f"{name[0]}_{name[1]}", student)
    return student


# a lone `d` (a width, d_model) before a space and a name or before `\cdot`: the parser reads
# `d V` as the differential dV and `d \cdot V` as the name `dcdot` times V; braced, it is d
_LONE_D = re.compile(r"(?<![A-Za-z\\])d(?=[ \t]*\\(?:cdot|times)(?![A-Za-z])|[ \t]+[A-Za-z\\(])")
_DERIVATIVE_D = re.compile(r"\\[dt]?frac\s*\{\s*d|(?<![A-Za-z])d\s*[A-Za-z]{1,3}\s*/\s*d")
_SQUARE_CALL = re.compile(r"(?<![A-Za-z])\\?(exp|log|ln|sin|cos|tan|tanh)\s*\[([^\[\]]{1,80})\]")
_TRIG_NAME = r"(?:[A-Za-z](?![A-Za-z])|\\(?:" + _GREEK + r")(?![A-Za-z]))"
_BARE_TRIG = re.compile(r"(?<![A-Za-z])\\?(cos|sin|tan)[ \t]+((?:" + _TRIG_NAME + r"[ \t]*){1,4})"
                        r"(?![({\[^_])")
_PLAIN_FUNCTION = re.compile(
    r"(?<![\\A-Za-z_])(exp|log|ln|sin|cos|tan|sinh|cosh|tanh)(?=\s*\()")


def refusal(expression: str) -> str | None:
    """Why an expression is not worth sending to the worker (too big, or built to be slow)."""
    if len(expression) > MAX_EXPRESSION:
        return "the expression is too long to check automatically"
    depth = deepest = 0
    for ch in expression:
        depth += ch in "{(["
        depth -= ch in "})]"
        deepest = max(deepest, depth)
    if deepest > MAX_NESTING:
        return "the expression is nested too deeply to check automatically"
    if re.search(r"!", expression.replace("\\!", "")):
        return "factorials are not checked automatically"
    if re.search(r"\^\s*\{[^{}]*\^", expression) or re.search(r"\^\s*\(?\s*\d{4,}", expression):
        return "the expression has a power too large to check automatically"
    if re.search(r"\d{16,}", expression):
        return "the expression has a number too large to check automatically"
    if re.search(r"__|\bimport\b|\blambda\s*:|\bexec\b|\beval\b", expression):
        return "the expression contains program code, not mathematics"
    return None


# a scalar's name, with a short subscript (t_1, t_{2}: one scale factor per head), read from a
# word's start and once (from each letter of a word of n letters, `[A-Za-z]+` read to its end
# before failing: quadratic)
_NAME = r"(\\?(?<![A-Za-z])[A-Za-z]++(?:_\s*\{?\s*\w{1,3}\s*\}?)?|[αβγλμθσ])"
_DECLARATIONS = (
    # "where S is a big scalar", "s is some large constant" (the adjective may be misread)
    re.compile(_NAME + r"\s+is\s+(?:a|an|some)\s+(?:\w+\s+){0,2}?"
               r"(?:scalar|constant|number|factor)\b"),
    # "(\\beta \\gg 0)", "C >> 1"
    re.compile(_NAME + r"\s*(?:\\gg|≫|>>)\s*[01]\b"),
)


def declared_scalars(text: str) -> set[str]:
    """Names the answer itself declares to be (large) scalars: `where S is a big scalar`."""
    names: set[str] = set()
    for pattern in _DECLARATIONS:
        for m in pattern.finditer(text):
            name = re.sub(r"[\s{}]", "", m.group(1).lstrip("\\"))
            name = _GREEK_NAMES.get(name, name)
            base = name.split("_", 1)[0]
            if len(base) == 1 or re.fullmatch(_GREEK, base):
                names.add(name)
    return names


_GREEK_NAMES = {"α": "alpha", "β": "beta", "γ": "gamma", "λ": "lambda", "μ": "mu",
                "θ": "theta", "σ": "sigma"}
