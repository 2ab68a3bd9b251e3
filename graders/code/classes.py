"""A battery that asks for a class's method (`function: LayerNorm.forward`): the classes of the
student's module as parsed (never run) here, which class and method the sandbox calls, and the
parameters of its `__init__` and of the method (without `self`).

A class's methods include those of its bases defined in the same module (a student's base class
with the shared helpers); a base from elsewhere (`nn.Module`-like, imported) may supply the
method, so it is called as asked and the sandbox decides. A dataclass without an `__init__` of
its own takes its fields. The method asked may be spelt another way (`__call__` for `forward`,
or the class's one public method): it is called in place of the asked one, as a function of
another name is (the interface check fails). A module-level function where a class is asked is
said so, and nothing runs: there is no instance to call.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from graders.code.calling import Parameters, parameters_from

# Spellings of one method: calling the instance and its `forward` are one thing in
# PyTorch-style code, which NumPy homework imitates.
_ALIASES = {"forward": ("__call__",), "__call__": ("forward",)}


@dataclass(frozen=True)
class ClassShape:
    name: str
    methods: dict[str, ast.FunctionDef]  # its own and its in-module bases', the nearest first
    foreign_base: bool  # a base not defined in the module (it may supply methods)
    dataclass: bool
    fields: tuple[tuple[str, bool], ...]  # a dataclass's fields: (name, has a default)


def _decorator_names(node: ast.ClassDef | ast.FunctionDef) -> set[str]:
    names: set[str] = set()
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Attribute):
            names.add(target.attr)
        elif isinstance(target, ast.Name):
            names.add(target.id)
    return names


def classes_in(source: str) -> dict[str, ClassShape] | None:
    """The module's top-level classes (the last definition of a name wins, as when it runs);
    None when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    nodes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    return {name: _shape(node, nodes) for name, node in nodes.items()}


def _shape(node: ast.ClassDef, nodes: dict[str, ast.ClassDef]) -> ClassShape:
    methods: dict[str, ast.FunctionDef] = {}
    foreign = False
    visited: list[ast.ClassDef] = []
    seen: set[str] = set()
    pending = [node]
    while pending:  # the bases in a breadth-first order: close to Python's for simple trees
        current = pending.pop(0)
        if current.name in seen:
            continue
        seen.add(current.name)
        visited.append(current)
        own: dict[str, ast.FunctionDef] = {}
        for statement in current.body:
            if isinstance(statement, ast.FunctionDef) and "property" not in \
                    _decorator_names(statement):
                own[statement.name] = statement
            elif isinstance(statement, ast.Assign) and isinstance(statement.value, ast.Name) \
                    and statement.value.id in own:
                # An alias in the class body (`forward = __call__`): the same method.
                for target in statement.targets:
                    if isinstance(target, ast.Name):
                        own[target.id] = own[statement.value.id]
        for spelt, method in own.items():
            methods.setdefault(spelt, method)
        for base in current.bases:
            name = base.id if isinstance(base, ast.Name) else None
            if name in nodes:
                pending.append(nodes[name])
            elif name != "object":
                foreign = True
    is_dataclass = "dataclass" in _decorator_names(node)
    fields: dict[str, bool] = {}  # a base's fields first; a redeclared one keeps its place
    for current in visited[::-1] if is_dataclass else ():
        for statement in current.body:
            if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name) \
                    and "ClassVar" not in ast.dump(statement.annotation):
                fields[statement.target.id] = statement.value is not None
    return ClassShape(node.name, methods, foreign, is_dataclass, tuple(fields.items()))


def method_parameters(shape: ClassShape, method: str) -> Parameters | None:
    """The method's parameters without `self` (a staticmethod's all of them); `__init__` of a
    dataclass without its own: its fields. None: not known from the source."""
    found = shape.methods.get(method)
    if found is None:
        if method == "__init__" and shape.dataclass:
            required = sum(not has for _, has in shape.fields)
            ordered = tuple(n for n, _ in shape.fields)
            return Parameters(ordered, required, (), False)
        return Parameters((), 0, (), False) if method == "__init__" and not shape.foreign_base \
            else None
    parameters = parameters_from(found)
    if "staticmethod" in _decorator_names(found) or not parameters.positional:
        return parameters
    return Parameters(parameters.positional[1:], max(parameters.required - 1, 0),
                      parameters.keyword_only, parameters.variadic)


@dataclass(frozen=True)
class MethodTarget:
    """What the sandbox constructs and calls, or why nothing can run."""

    cls: str
    method: str
    renamed: bool = False  # another class or method than the asked one
    note: str = ""  # said to the student and the staff when renamed
    problem: str = ""  # nothing runs: said to the student


def _snake(name: str) -> str:
    return re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", name).lower()


def resolve(source: str, asked: str, functions: list[str],
            bindings: frozenset[str] | None) -> MethodTarget:
    """The class and method to call for the asked `Class.method`, matched as a misnamed
    function is: the asked names, else the one spelling that fits."""
    cls, _, method = asked.partition(".")
    classes = classes_in(source) or {}
    shape = classes.get(cls)
    if shape is None:
        if cls in (bindings or frozenset()):
            return MethodTarget(cls, method)  # bound otherwise (imported, assigned): as asked
        having = [c for c in classes.values() if method in c.methods]
        if len(having) == 1:
            other = having[0].name
            return MethodTarget(other, method, True, f"No class is named `{cls}`; graded your "
                                f"class `{other}` in its place.")
        found = ", ".join(f"`{c}`" for c in classes) or "none"
        said = f"Your code defines no class `{cls}` (classes found: {found})."
        like = [f for f in functions if f in (method, _snake(cls)) or _snake(cls) in f]
        if like:
            said = (f"The question asks for a class `{cls}` with a method `{method}`; your code "
                    f"defines the function `{like[0]}` instead, and no class `{cls}`.")
        return MethodTarget(cls, method, problem=said)
    if method in shape.methods:
        return MethodTarget(cls, method)
    public = [m for m in shape.methods if not m.startswith("_")]
    spelt = [m for m in _ALIASES.get(method, ()) if m in shape.methods]
    if not spelt and not shape.foreign_base and len(public) == 1:
        spelt = public
    if spelt:
        return MethodTarget(cls, spelt[0], True, f"Your class `{cls}` has no method `{method}`; "
                            f"graded its `{spelt[0]}` in its place.")
    if shape.foreign_base:  # the base may define it: the sandbox decides
        return MethodTarget(cls, method)
    found = ", ".join(f"`{m}`" for m in shape.methods if m != "__init__") or "none"
    return MethodTarget(cls, method, problem=f"Your class `{cls}` has no method `{method}` "
                        f"(methods found: {found}).")
