"""Words for code results, in the two registers: staff feedback may quote test inputs, values
and the machine's evidence; student feedback says what is wrong and gives a hint, and never
shows a test input (an exception message that prints arrays is summarised)."""

from __future__ import annotations

import re

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


def safe_message(error: StudentError, for_student: bool) -> str:
    """The exception as `Type: message`, capped; for the student without values from the
    inputs."""
    message = " ".join(error.message.split())[:MAX_MESSAGE]
    if for_student and _ARRAYISH.search(message[:MAX_MESSAGE]):
        return f"{error.type} (its message shows array values, not repeated here)"
    return f"{error.type}: {message}" if message else error.type


def where_raised(source: str, error: StudentError) -> str:
    """" at line N: `the line`" for the student's line the exception came from ("" if none)."""
    if not error.lines:
        return ""
    number = error.lines[-1]
    lines = source.splitlines()
    text = lines[number - 1].strip() if 1 <= number <= len(lines) else ""
    return f" at line {number}" + (f": `{text}`" if text else "")


def sentence(text: str) -> str:
    text = text.strip()
    if not text:
        return ""
    return text[0].upper() + text[1:] + ("" if text.endswith((".", "!", "?")) else ".")


def adapted_words(adaptations: frozenset[AdaptationName], for_student: bool) -> str:
    table = STUDENT_ADAPTED if for_student else ADAPTED
    parts = [table[a] for a in sorted(adaptations) if table[a]]
    return "; ".join(parts)
