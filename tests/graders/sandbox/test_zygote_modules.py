"""The zygote's own modules (graders/sandbox/zygote_*.py), which the parent sends it as text:
each under 400 lines; each imports only the standard library its private root holds and the
zygote modules made before it (NumPy only inside a function, once the zygote serves); and made
by a fresh `python -I -S` with nothing of gradeformer's on its path, they import nothing else."""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

from graders.sandbox import zygote
from graders.sandbox.root import STDLIB_SKIPPED

SANDBOX = Path(zygote.__file__).resolve().parent
MAX_LINES = 400
MAX_ARGUMENT = 1 << 17  # Linux's MAX_ARG_STRLEN: execve refuses a longer argument


def _imports(tree: ast.Module) -> tuple[set[str], set[str]]:
    """The modules imported at the top of a module, and those imported inside its functions."""
    top = {node for node in tree.body if isinstance(node, ast.Import | ast.ImportFrom)}
    names: tuple[set[str], set[str]] = (set(), set())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found = {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found = {node.module}
        else:
            continue
        names[0 if node in top else 1].update(found)
    return names


def _outside(names: set[str], allowed: set[str], packages: frozenset[str] = frozenset()
             ) -> set[str]:
    """The imported modules that are neither `allowed`, in one of `packages`, nor part of the
    standard library the private root holds."""
    def inside(name: str) -> bool:
        top = name.split(".")[0]
        return (name in allowed or top in packages
                or (top in sys.stdlib_module_names and top not in STDLIB_SKIPPED))

    return {name for name in names if not inside(name)}


def test_the_zygote_modules_import_only_the_standard_library_and_each_other() -> None:
    wrong = []
    for index, name in enumerate(zygote.ZYGOTE_MODULES):
        source = (SANDBOX / f"{name}.py").read_text()
        earlier = {f"graders.sandbox.{other}" for other in zygote.ZYGOTE_MODULES[:index]}
        top, inner = _imports(ast.parse(source))
        wrong += [f"{name} imports {other}" for other in sorted(_outside(top, earlier))]
        wrong += [f"{name} imports {other} in a function"
                  for other in sorted(_outside(inner, earlier, frozenset({"numpy"})))]
        lines = source.count("\n")
        if lines >= MAX_LINES:
            wrong.append(f"{name} has {lines} lines")
    assert not wrong, wrong


def test_the_import_check_finds_an_import_outside_the_root() -> None:
    top, inner = _imports(ast.parse("import os\nimport numpy\nfrom graders.sandbox import pool\n"
                                    "def f():\n    import tkinter\n    import numpy.fft\n"))
    assert _outside(top, set()) == {"numpy", "graders.sandbox"}
    assert _outside(inner, set(), frozenset({"numpy"})) == {"tkinter"}
    assert _outside(inner, set()) == {"tkinter", "numpy.fft"}


def test_the_zygote_source_fits_one_argument_of_execve() -> None:
    assert len(zygote.ZYGOTE_SOURCE.encode()) < MAX_ARGUMENT


def test_a_fresh_interpreter_makes_the_zygote_modules_from_their_text_alone() -> None:
    probe = zygote.ZYGOTE_LOADER + (
        "import json\n"
        "print(json.dumps({n: getattr(m, '__file__', None) for n, m in sys.modules.items()}))\n")
    done = subprocess.run([sys.executable, "-I", "-S", "-c", probe], capture_output=True,
                          text=True, env=zygote.ENVIRONMENT, cwd="/", timeout=60, check=True)
    modules: dict[str, str | None] = json.loads(done.stdout)
    assert sorted(n for n in modules if n.startswith("graders")) == sorted(
        f"graders.sandbox.{name}" for name in zygote.ZYGOTE_MODULES)
    assert "numpy" not in modules  # imported once serving, after the private root is built
    stdlib = os.path.realpath(sysconfig.get_paths()["stdlib"])
    files = {n: os.path.realpath(f) for n, f in modules.items() if f and not f.startswith("<")}
    assert all(f.startswith(stdlib + os.sep) for f in files.values()), files
