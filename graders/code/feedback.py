"""Words for code results, in the two registers: staff feedback may quote test inputs, values
and the machine's evidence; student feedback says what is wrong and gives a hint, and never
shows a test input (an exception message that prints arrays is summarised)."""

from __future__ import annotations

import ast
import builtins
import re
from functools import lru_cache

from graders.code.battery import AdaptationName
from graders.sandbox import StudentError

MAX_MESSAGE = 300
# A message showing numbers in brackets or an array repr is quoting the inputs it was given.
_ARRAYISH = re.compile(r"\[[^\]\n]{0,200}\d|array\(|\d\.\d{3,}")

ADAPTED: dict[AdaptationName, str] = {
    "swapped_pair": "it returns (weights, output), in reverse order; it was read in that order",
    "output_only": "it returns only the output, not (output, weights)",
    "derived_weights": "its weights were read from its output when called with V = I (the "
                       "identity), since it does not return them",
    "mask_argument": "it requires a mask argument, so it was called with a mask",
    "extra_argument": "it requires d_k as a fourth argument, so it was given it",
    "batch_dims": "it works only on batched inputs, so it was called with a batch of one",
    "rounded": "its results match only to about 1e-3 (rounded), not to the tolerance",
}

STUDENT_ADAPTED: dict[AdaptationName, str] = {
    "swapped_pair": "your function returns (weights, output): the order is reversed",
    "output_only": "your function returns only the output, not (output, weights)",
    "derived_weights": "",
    "mask_argument": "your function requires a mask argument instead of building the causal "
                     "mask itself",
    "extra_argument": "your function requires an extra argument (d_k) that the question does "
                      "not pass",
    "batch_dims": "your function only works on batched (3-D) inputs",
    "rounded": "your results are rounded, so they match only approximately",
}


# Exception classes a student's code cannot name: Python's own and NumPy's. Any other class
# name is the student's choice, and a program can choose it from the hidden inputs (a class
# named after a value, or one of two classes by a value's sign), so students never see it.
_KNOWN_ERRORS = frozenset(
    name for name, value in vars(builtins).items()
    if isinstance(value, type) and issubclass(value, BaseException)
) | {"LinAlgError", "AxisError"}
_DIGIT = re.compile(r"\d")
# Python's messages that name things: each named part must be a word of the student's own
# source (or a type Python or NumPy names), so the message says nothing the source does not.
_NAMING = [re.compile(p) for p in (
    r"name '([\w.]+)' is not defined",
    r"'([\w.]+)' object has no attribute '(\w+)'",
    r"module '([\w.]+)' has no attribute '(\w+)'",
    r"'([\w.]+)' object is not (?:subscriptable|callable|iterable)",
    r"unsupported operand type\(s\) for [^\w\s]{1,3}: '([\w.]+)' and '([\w.]+)'",
    r"No module named '([\w.]+)'",
)]
_TYPE_WORDS = frozenset({"NoneType", "int", "float", "str", "bool", "tuple", "list", "dict",
                         "set", "function", "method", "module", "type", "numpy", "ndarray",
                         "float64", "float32", "int64", "int32", "bool_",
                         "builtin_function_or_method"})


@lru_cache(maxsize=256)
def _source_words(source: str) -> tuple[frozenset[str], frozenset[str]]:
    """The identifiers and the string constants of `source` (what its author wrote)."""
    words = frozenset(re.findall(r"\w+", source[:200_000]))
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return words, frozenset()
    literals = frozenset(node.value for node in ast.walk(tree)
                         if isinstance(node, ast.Constant) and isinstance(node.value, str))
    return words, literals


def _said_by_source(message: str, source: str) -> bool:
    """Whether the message repeats only what the source itself says: one of its string
    constants (its own `raise ValueError("...")`, or a missing key it spells), or one of
    Python's naming messages whose names are all words of the source."""
    words, literals = _source_words(source)
    if message in literals or any(message == repr(text) for text in literals):
        return True
    for pattern in _NAMING:
        match = pattern.fullmatch(message)
        if match is not None:
            return all(part in words or part in _TYPE_WORDS
                       for group in match.groups() for part in group.split("."))
    return False


def safe_message(error: StudentError, for_student: bool, source: str = "") -> str:
    """The exception as `Type: message`, capped. For the student nothing that can carry a value
    of the hidden inputs: a class of the student's own is not named, and the message is
    repeated only when it says nothing the source does not (a constant of the source, or a
    name the source spells) and has no digit in it (a size, a value, an array)."""
    message = " ".join(error.message.split())[:MAX_MESSAGE]
    if not for_student:
        return f"{error.type}: {message}" if message else error.type
    kind = error.type if error.type in _KNOWN_ERRORS else "an exception of its own class"
    if message and (_DIGIT.search(message) or _ARRAYISH.search(message)
                    or not _said_by_source(message, source)):
        return f"{kind} (its message is not repeated here: it may quote values of the inputs)"
    return f"{kind}: {message}" if message and kind == error.type else kind


def syntax_error(source: str) -> tuple[int, str] | None:
    """Where and why `source` does not compile, as the harness would report it (None if it
    compiles). Compiled here, never run."""
    try:
        compile(source, "<submission>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return exc.lineno or 0, f"{type(exc).__name__}: {exc.msg}"[:300]
    except (ValueError, MemoryError, RecursionError) as exc:
        return 0, f"{type(exc).__name__}: {exc}"[:300]
    return None


def student_problem(problem: str) -> str:
    """What a call's result was, as the student may read it: the kind of failure, never a
    returned shape or a type name of the student's choosing."""
    if problem.startswith("raised"):
        return "raised an exception"
    if problem.startswith("returned no "):
        return problem  # names of the asked outputs, from the battery
    if problem.startswith("returned"):
        return "returned something other than the asked result"
    return problem  # the harness's own words (a time limit, a stop reason)


def where_raised(source: str, error: StudentError) -> str:
    """" at line N: `the line`" for the student's line the exception came from ("" if none)."""
    if not error.lines:
        return ""
    number = error.lines[-1]
    lines = source.splitlines()
    text = lines[number - 1].strip() if 1 <= number <= len(lines) else ""
    if not text or text.startswith("#"):
        # No code of the program is there (past its end, a blank or a comment line): the
        # program rewrote a code object's line numbers or compiled text of its own under the
        # submission's name, and the number it reports can be a value of the inputs.
        return ""
    return f" at line {number}: `{text}`"


def sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    return text[0].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def adapted_words(adaptations: frozenset[AdaptationName], for_student: bool) -> str:
    table = STUDENT_ADAPTED if for_student else ADAPTED
    parts = [table[a] for a in sorted(adaptations) if table[a]]
    return "; ".join(parts)
