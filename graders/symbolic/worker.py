"""The symbolic worker: a separate process that parses and compares expressions.

Run as a script (`python -I worker.py`), it reads one JSON request per line on stdin and writes
one JSON reply per line on stdout. It imports only the standard library, SymPy and
latex2sympy2_extended; it never calls sympify/parse_expr/eval on the text it receives. The
parent kills it on a wall-clock timeout, and it limits its own address space at start, so an
expression like 10^{10^{10}} costs one restart, not the grader.
"""

from __future__ import annotations

import json
import re
import resource
import sys
from typing import Any

MEMORY_LIMIT = 1536 * 1024 * 1024
MAX_INPUT = 2000
# how the grader names a norm (graders.notation.NORM_PREFIX; the worker imports no grader code)
NORM_PREFIX = "norm_"
# `\gamma` before a sign or a bracket (`\gamma+1`, `\gamma(k_a + k_b)`, `\gamma_1 x`) is parsed
# as Euler's gamma function of what follows; spelled as a name it is always the symbol
_GAMMA = re.compile(r"\\gamma(?![A-Za-z])")


def _limit_memory() -> None:
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = MEMORY_LIMIT if hard == resource.RLIM_INFINITY else min(MEMORY_LIMIT, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def canonical_name(name: str) -> str:
    """`k_{a}` -> k_a, `\\mu_{a}` -> mu_a, `d_{\\text{model}}` -> d_model."""
    name = re.sub(r"\\(?:text|mathrm|mathit|mathbf|operatorname)\s*", "", name)
    name = name.replace("\\", "").replace("{", "").replace("}", "").replace(" ", "")
    return name


def _parse(latex: str) -> Any:
    from latex2sympy2_extended import latex2sympy

    if len(latex) > MAX_INPUT:
        raise ValueError("expression too long")
    import sympy

    expr = latex2sympy(_GAMMA.sub(r"\\mathit{gamma}", latex))
    # a student's \gamma is a scale factor, not the Euler-Mascheroni constant
    expr = expr.xreplace({sympy.EulerGamma: sympy.Symbol("gamma")})
    return _canonical_symbols(expr)


def _canonical_symbols(expr: Any) -> Any:
    import sympy

    mapping = {s: sympy.Symbol(canonical_name(s.name)) for s in expr.free_symbols
               if isinstance(s, sympy.Symbol) and canonical_name(s.name) != s.name}
    return expr.xreplace(mapping) if mapping else expr


def _alias(expr: Any, aliases: dict[str, str]) -> Any:
    import sympy

    mapping = {s: sympy.Symbol(aliases[s.name]) for s in expr.free_symbols
               if isinstance(s, sympy.Symbol) and s.name in aliases}
    return expr.xreplace(mapping) if mapping else expr


def _positive(expr: Any) -> Any:
    """Assume every symbol is positive: a scale factor `beta` means a positive number."""
    import sympy

    mapping = {s: sympy.Symbol(s.name, positive=True) for s in expr.free_symbols
               if isinstance(s, sympy.Symbol)}
    return expr.xreplace(mapping)


def _names(expr: Any) -> set[str]:
    return {str(s) for s in expr.free_symbols}


def compare(request: dict[str, Any]) -> dict[str, Any]:
    import sympy

    aliases = {str(k): str(v) for k, v in dict(request.get("aliases") or {}).items()}
    scalars = {str(s) for s in request.get("scalars") or []}
    # the LaTeX parser lower-cases single capital letters (S M_a -> s*m_a)
    aliases.update({k.lower(): v for k, v in list(aliases.items()) if k.lower() not in aliases})
    scalars |= {s.lower() for s in scalars}
    student = _positive(_alias(_parse(str(request["student"])), aliases))
    expected = _positive(_parse(str(request["expected"])))
    shown = sympy.sstr(student)
    if len(shown) > 400:
        shown = shown[:397] + "..."
    # the direction: the expected expression with its scale factors set to one
    direction = expected.xreplace({s: sympy.Integer(1) for s in expected.free_symbols
                                   if s.name in scalars})
    if sympy.simplify(student - expected) == 0:
        return {"ok": True, "verdict": "equivalent", "student": shown}
    if request.get("mode") == "equivalent" or direction == 0:
        return {"ok": True, "verdict": "different", "student": shown}
    ratio = sympy.simplify(student / direction)
    # a norm (`\\|k_a\\|`, read as norm_ka) in the factor is a positive number of no particular size
    ratio = ratio.xreplace({s: sympy.Integer(1) for s in ratio.free_symbols
                            if str(s).startswith(NORM_PREFIX)})
    vector_names = _names(direction)
    if _names(ratio) & vector_names or ratio.has(sympy.zoo, sympy.nan):
        return {"ok": True, "verdict": "different", "student": shown}
    unknown = sorted(_names(ratio) - scalars)
    if unknown:
        return {"ok": True, "verdict": "other_factor", "factor": sympy.sstr(ratio),
                "unknown": unknown, "student": shown}
    if ratio.free_symbols:
        verdict = "large_multiple" if ratio.is_positive else "nonpositive_multiple"
        return {"ok": True, "verdict": verdict, "factor": sympy.sstr(ratio), "student": shown}
    value = float(ratio.evalf(15))
    if value <= 0:
        verdict = "nonpositive_multiple"
    elif value >= float(request.get("large_number", 10)):
        verdict = "large_multiple"
    else:
        verdict = "constant_multiple"
    return {"ok": True, "verdict": verdict, "factor": sympy.sstr(ratio), "value": value,
            "student": shown}


def depends_on_difference(request: dict[str, Any]) -> dict[str, Any]:
    """Does the expression depend on t1 and t2 only through t1 - t2?

    A quick symbolic attempt (substitute t1 = t2 + delta and see t2 vanish), then a numeric
    check at random points, which needs no simplification that might not terminate.
    """
    import random

    import sympy

    expr = _parse(str(request["student"]))
    first, second = (sympy.Symbol(str(n)) for n in request["pair"])
    shown = sympy.sstr(expr)[:400]
    if first not in expr.free_symbols and second not in expr.free_symbols:
        return {"ok": True, "verdict": "no_dependence", "student": shown}
    delta = sympy.Symbol("delta__")
    shifted = sympy.expand(expr.xreplace({first: second + delta}))
    if second not in shifted.free_symbols:
        return {"ok": True, "verdict": "difference_only", "student": shown}
    rng = random.Random(1234)
    others = sorted((s for s in shifted.free_symbols if s not in (second, delta)), key=str)
    # numeric substitution, not lambdify: lambdify generates and execs source code that would
    # contain the student's symbol names
    for _ in range(4):
        fixed = {s: sympy.Float(rng.uniform(0.3, 1.7)) for s in others}
        fixed[delta] = sympy.Float(rng.uniform(0.2, 1.5))
        values = [
            complex(shifted.xreplace({**fixed, second: sympy.Float(rng.uniform(-2.0, 2.0))})
                    .evalf(15))
            for _ in range(3)
        ]
        scale = max(1.0, *(abs(v) for v in values))
        if max(abs(v - values[0]) for v in values) > 1e-8 * scale:
            return {"ok": True, "verdict": "depends_separately", "student": shown}
    return {"ok": True, "verdict": "difference_only", "student": shown}


def handle(request: dict[str, Any]) -> dict[str, Any]:
    op = request.get("op")
    try:
        if op == "compare":
            return compare(request)
        if op == "depends_on_difference":
            return depends_on_difference(request)
        if op == "ping":
            return {"ok": True}
        return {"ok": False, "error": f"unknown operation {op!r}"}
    except MemoryError:
        return {"ok": False, "error": "memory limit"}
    except RecursionError:
        return {"ok": False, "error": "too deeply nested"}
    except Exception as exc:  # any parse failure is an answer we could not read
        message = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        return {"ok": False, "error": f"cannot read the expression ({message})"}


def main() -> None:
    _limit_memory()
    sys.setrecursionlimit(3000)
    import latex2sympy2_extended  # noqa: F401  (import once, before the first request)

    out = sys.stdout
    out.write(json.dumps({"ok": True, "ready": True}) + "\n")
    out.flush()
    for line in sys.stdin:
        try:
            request = json.loads(line)
        except json.JSONDecodeError:
            reply: dict[str, Any] = {"ok": False, "error": "bad request"}
        else:
            reply = handle(request) if isinstance(request, dict) else {"ok": False,
                                                                       "error": "bad request"}
            if isinstance(request, dict) and "id" in request:
                reply["id"] = request["id"]
        out.write(json.dumps(reply) + "\n")
        out.flush()


if __name__ == "__main__":
    main()
