"""Whether a program may share a process with a later program of the same submission.

`Sandbox.run_together` runs several programs of one submission in one child, each in a fresh
namespace. What a program could leave behind for the next lives outside its namespace: the
child puts back the global state code commonly changes (NumPy's error handling and random
state, warning filters, ...) and reports replaced streams, hooks and signal handlers; this
module rules out, from the source alone, the rest: rebinding or mutating what an import gave
(`np.float = float`, `sys.modules[...] = ...`, `np.some_list.append(...)`), reflection that can
reach any object (`setattr`, `vars`, `__dict__`, `exec`), and modules made for poking at the
interpreter (ctypes, gc, importlib). A program that fails the check runs in a child of its own.
Obfuscated code can slip past; it can then only change its own submission's other results,
which that submission's code could do anyway, so the check guards honest code, not security.
"""

from __future__ import annotations

import ast

_REFLECTION = frozenset({"setattr", "delattr", "exec", "eval", "compile", "__import__", "vars"})
_DUNDERS = frozenset({"__dict__", "__globals__", "__builtins__", "__code__", "__defaults__",
                      "__kwdefaults__", "__closure__", "__bases__", "__subclasses__", "__mro__",
                      "__setattr__", "__delattr__"})
_INTERPRETER_MODULES = frozenset({"ctypes", "gc", "importlib", "builtins", "inspect", "types",
                                  "sys", "os", "atexit", "signal", "threading", "code", "pdb"})
_MUTATORS = frozenset({"append", "extend", "insert", "pop", "popitem", "remove", "clear",
                       "update", "setdefault", "add", "discard", "sort", "reverse", "__setitem__",
                       "__delitem__"})


def _root(node: ast.expr) -> ast.expr:
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node


def _targets(node: ast.AST) -> list[ast.expr]:
    if isinstance(node, ast.Assign):
        return list(node.targets)
    if isinstance(node, ast.AugAssign | ast.AnnAssign):
        return [node.target]
    if isinstance(node, ast.Delete):
        return list(node.targets)
    if isinstance(node, ast.For | ast.AsyncFor):
        return [node.target]
    if isinstance(node, ast.withitem) and node.optional_vars is not None:
        return [node.optional_vars]
    return []


def _flatten(target: ast.expr) -> list[ast.expr]:
    if isinstance(target, ast.Tuple | ast.List):
        return [t for element in target.elts for t in _flatten(element)]
    if isinstance(target, ast.Starred):
        return _flatten(target.value)
    return [target]


def keeps_to_itself(source: str) -> bool:
    """True when nothing in `source` can change state a later program would see (as far as
    its syntax tells). Source that does not parse never runs past its error: True."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return True
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            base = node.module if isinstance(node, ast.ImportFrom) else None
            for alias in node.names:
                full = f"{base}.{alias.name}" if base else alias.name
                if full.split(".")[0] in _INTERPRETER_MODULES or alias.name in _INTERPRETER_MODULES:
                    return False
                imported.add(alias.asname or alias.name.split(".")[0])
    foreign = imported | {"__builtins__"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in _DUNDERS:
            return False
        if isinstance(node, ast.Name) and node.id in _REFLECTION | {"__builtins__"}:
            return False
        if isinstance(node, ast.Global | ast.Nonlocal) and set(node.names) & foreign:
            return False
        for target in (t for raw in _targets(node) for t in _flatten(raw)):
            if isinstance(target, ast.Attribute | ast.Subscript):
                root = _root(target)
                if not isinstance(root, ast.Name) or root.id in foreign:
                    return False
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) \
                and node.func.attr in _MUTATORS:
            holder = node.func.value
            root = _root(holder)
            if holder is not root and (not isinstance(root, ast.Name) or root.id in foreign):
                return False
    return True
