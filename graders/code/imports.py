"""Imports an answer relies on from the same submission's earlier code answers.

A notebook exported question by question (or a form with one box per question) often imports
NumPy once, in the first code answer; the later answers use `np` as the notebook did. Such an
answer gets the earlier answers' import statements that bind a name it uses and never binds
itself, appended after its own code (functions look names up when called, so every line keeps
its number). Nothing else is taken from the other answers, and all of it is parsed, never run,
here.
"""

from __future__ import annotations

import ast
import builtins

from graders.code.extract import extract_code
from graders.context import GradingContext

_BUILTINS = frozenset(dir(builtins))
MAX_IMPORTS = 20


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _unbound(tree: ast.Module) -> set[str]:
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


def borrowed_imports(source: str, context: GradingContext) -> tuple[str, list[str]]:
    """(the import lines to append, the questions they came from)."""
    tree = _parse(source)
    if tree is None:
        return "", []
    missing = _unbound(tree)
    if not missing:
        return "", []
    lines: list[str] = []
    sources: list[str] = []
    for question in context.rubric.questions:
        if question.id == context.question.id:
            break
        answer = context.submission.answers.get(question.id)
        if answer is None or not any(item.grader == "code" for item in question.items):
            continue
        code = extract_code(answer.text)
        earlier = _parse(code.source) if code is not None else None
        if earlier is None:
            continue
        for node in earlier.body:
            if not isinstance(node, ast.Import | ast.ImportFrom) or (
                    isinstance(node, ast.ImportFrom) and node.level):
                continue  # a relative import names a package the sandbox does not have
            names = {(a.asname or a.name).split(".")[0] for a in node.names}
            if names & missing and len(lines) < MAX_IMPORTS:
                lines.append(ast.unparse(node))
                missing -= names
                if question.id not in sources:
                    sources.append(question.id)
    return "\n".join(lines), sources
