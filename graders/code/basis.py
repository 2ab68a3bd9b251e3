"""What of a located submission the code grader reads, as one digest (its group's key basis).

A code group's results are a function of its question's answer text, the answers to the code
questions before it and the import lines of a text document above the answer (whose imports an
answer may borrow, `graders.code.imports`), whether its format lends the usual NumPy import
and, for a notebook, the document up to the end of the answer (its cells run in order,
`graders.code.plan`).
Keyed by that rather than by the whole located submission, two documents with the same programs
share their results: a battery change then reruns the grader once per distinct program, not
once per submission.
"""

from __future__ import annotations

import ast
import hashlib

from graders.code.imports import document_imports, lends_conventional
from graders.context import GradingContext

# 2: the document's import lines are part of the basis (without them a program borrowing
# `import numpy as np` from above the questions shared its results with the same program
# under no such line, which cannot run).
VERSION = "code-basis-2"


def code_basis(context: GradingContext) -> str | None:
    """The digest of what the code grader reads of `context.submission` for its question, or
    None when it reads more than this names (a notebook: the caller keys by the whole)."""
    submission = context.submission
    if submission.format == "notebook":
        return None
    answer = submission.answers.get(context.question.id)
    if answer is None:
        return None
    parts = [VERSION, context.question.id, answer.text]
    if answer.strength != "strong" or answer.doubt:
        # the engine sends such an answer's items to review (graders.engine.location_review):
        # the same program located strongly elsewhere must not share its results
        parts += ["location", answer.weak_reason, answer.doubt]
    for question in context.rubric.questions:
        if question.id == context.question.id:
            break
        if not any(item.grader == "code" for item in question.items):
            continue
        earlier = submission.answers.get(question.id)
        parts += [question.id, "-" if earlier is None else "+" + earlier.text]
    parts += ["imports", *(ast.unparse(statement) for statement in document_imports(context))]
    # a typed or transcribed answer is lent `import numpy as np`; the same text in a .py file
    # that never imports NumPy fails, and must not share the other's results
    parts += ["usual imports", "lent" if lends_conventional(context) else "none"]
    hasher = hashlib.sha256()
    for part in parts:
        encoded = part.encode("utf-8", "surrogatepass")
        hasher.update(len(encoded).to_bytes(8, "big"))
        hasher.update(encoded)
    return "code:" + hasher.hexdigest()
