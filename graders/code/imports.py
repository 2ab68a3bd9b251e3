"""Names an answer relies on from the same submission's earlier code answers.

A notebook exported question by question (or a form with one box per question) often imports
NumPy once, in the first code answer, and defines a helper once (`softmax` in Q1, called by the
attention of Q4); the later answers use them as the notebook did. Such an answer gets what the
earlier answers bind at top level and it uses but never binds itself: import statements,
function definitions and constant assignments (`EPS = 1e-5`), and, in turn, what those use,
appended after its own code (functions look names up when called, so every line keeps its
number). Nothing else is taken from the other answers, and all of it is parsed, never run,
here.
"""

from __future__ import annotations

import ast
import builtins

from graders.code.extract import extract_code
from graders.context import GradingContext

_BUILTINS = frozenset(dir(builtins))
MAX_IMPORTS = 20  # statements borrowed, at most
MAX_BORROWED_CHARS = 20_000


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _unbound(tree: ast.AST) -> set[str]:
    """Names the program reads but never binds anywhere (nor are builtins)."""
    used: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (used if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            bound.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
    return used - bound - _BUILTINS


def _binds(node: ast.stmt) -> set[str]:
    """The names a top-level statement of an earlier answer can lend: an import (not a
    relative one: the sandbox has no package), a function definition, or an assignment of a
    constant to plain names."""
    if isinstance(node, ast.Import) or (isinstance(node, ast.ImportFrom) and not node.level):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    if isinstance(node, ast.FunctionDef):
        return {node.name}
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant | ast.UnaryOp) \
            and all(isinstance(t, ast.Name) for t in node.targets):
        return {t.id for t in node.targets if isinstance(t, ast.Name)}
    return set()


def borrowed_imports(source: str, context: GradingContext) -> tuple[str, list[str]]:
    """(the statements to append, the questions they came from)."""
    tree = _parse(source)
    if tree is None:
        return "", []
    missing = _unbound(tree)
    if not missing:
        return "", []
    lenders: list[tuple[str, list[ast.stmt]]] = []
    for question in context.rubric.questions:
        if question.id == context.question.id:
            break
        answer = context.submission.answers.get(question.id)
        if answer is None or not any(item.grader == "code" for item in question.items):
            continue
        code = extract_code(answer.text)
        earlier = _parse(code.source) if code is not None else None
        if earlier is not None:
            lenders.append((question.id, earlier.body))
    preamble = document_imports(context)
    if preamble:
        lenders.append((DOCUMENT, preamble))
    taken: list[tuple[int, int, str]] = []  # (lender, statement, text): kept in their order
    sources: list[str] = []
    seen: set[tuple[int, int]] = set()
    provided: set[str] = set()  # what the statements taken bind
    size = 0
    changed = True
    while changed and missing and len(taken) < MAX_IMPORTS:
        changed = False
        for li, (qid, body) in enumerate(lenders):
            for si, node in enumerate(body):
                names = _binds(node)
                if (li, si) in seen or not names & missing or len(taken) >= MAX_IMPORTS:
                    continue
                seen.add((li, si))
                text = ast.unparse(node)
                if size + len(text) > MAX_BORROWED_CHARS:
                    continue
                taken.append((li, si, text))
                size += len(text)
                provided |= names
                missing = (missing - names) | (_unbound(node) - provided)
                if qid not in sources:
                    sources.append(qid)
                changed = True
    imports = [t for *_, t in sorted(taken) if t.startswith(("import ", "from "))]
    others = [t for *_, t in sorted(taken) if not t.startswith(("import ", "from "))]
    conventional = _conventional_imports(missing, context)
    if conventional:
        imports = conventional + imports
        sources.append(CONVENTION)
    return "\n".join(imports + others), sources


DOCUMENT = "the top of your document"
CONVENTION = "the usual NumPy import"
# The sandbox's one library under the names every course uses for it.
_CONVENTIONAL = {"np": "import numpy as np", "numpy": "import numpy"}
# Documents whose code is typed or transcribed to be read (a handwritten page, a report), not a
# program run as it stands: a .py file or a notebook that never imports NumPy has a real bug.
_TRANSCRIBED = frozenset({"text", "markdown", "latex", "pdf"})


def lends_conventional(context: GradingContext) -> bool:
    """Whether the submission's format lends the usual NumPy import to a program that uses it
    unbound (a transcribed or typed answer), so that the same program text grades differently
    in a .py file or a notebook (part of the code grader's key basis, graders.code.basis)."""
    return context.submission.format in _TRANSCRIBED


def _conventional_imports(missing: set[str], context: GradingContext) -> list[str]:
    """`np` (or `numpy`) used and bound nowhere in the answer, the earlier answers or the top
    of a document's text: `import numpy as np`, as the course's every program starts."""
    if not lends_conventional(context):
        return []
    return [_CONVENTIONAL[name] for name in sorted(missing & _CONVENTIONAL.keys())]


MAX_IMPORT_LINE = 200


def document_imports(context: GradingContext) -> list[ast.stmt]:
    """Import lines of a text document (Markdown, LaTeX, a PDF, a transcript) before this
    answer: a printed notebook imports NumPy once, above the first question, in no answer.
    A JSON answer or a notebook has none (its cells already run in order)."""
    submission = context.submission
    answer = submission.answers.get(context.question.id)
    if submission.format in ("json", "notebook") or answer is None or answer.start is None:
        return []
    found: list[ast.stmt] = []
    for line in submission.text[:answer.start].splitlines():
        stripped = line.strip().strip("`$")
        if not stripped.startswith(("import ", "from ")) or len(stripped) > MAX_IMPORT_LINE:
            continue
        tree = _parse(stripped)
        if tree is not None and len(tree.body) == 1 \
                and isinstance(tree.body[0], ast.Import | ast.ImportFrom):
            found.append(tree.body[0])
    return found[:MAX_IMPORTS]
