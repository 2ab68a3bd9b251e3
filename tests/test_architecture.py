"""graders/ is a pure library: importing all of it pulls in no web or database framework."""

import ast
import subprocess
import sys
from collections.abc import Collection, Mapping
from pathlib import Path

FORBIDDEN = ("app", "fastapi", "sqlalchemy", "starlette", "alembic", "celery", "uvicorn")


def test_graders_import_no_service_code() -> None:
    code = (
        "import pkgutil, importlib, sys, graders\n"
        "for m in pkgutil.walk_packages(graders.__path__, 'graders.'):\n"
        "    importlib.import_module(m.name)\n"
        f"bad = sorted(n for n in sys.modules if n.split('.')[0] in {FORBIDDEN!r})\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "", f"graders imported: {out.stdout.strip()}"


ROOT = Path(__file__).resolve().parent.parent
PIPELINE = ("app/grading", "app/regrade")
MAX_FUNCTION_LINES = 80


def _modules(*folders: str) -> dict[str, ast.Module]:
    found: dict[str, ast.Module] = {}
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
            found[name.removesuffix(".__init__")] = ast.parse(path.read_text(), str(path))
    return found


def test_no_function_of_the_grading_pipeline_is_over_80_lines() -> None:
    long = [
        f"{name}.{node.name}: {node.end_lineno - node.lineno + 1} lines"
        for name, tree in _modules(*PIPELINE).items()
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert not long, long


def _imports(name: str, tree: ast.Module, known: Collection[str]) -> set[str]:
    """The modules of `known` that `name` imports anywhere: at the top, in a function or
    under TYPE_CHECKING (a circle hidden there is still a circle)."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.update(m for m in [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
                         if m in known)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name in known)
    found.discard(name)
    return found


def _circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        for other in sorted(graph[module]):
            if other not in index:
                visit(other)
                low[module] = min(low[module], low[other])
            elif other in stack:
                low[module] = min(low[module], index[other])
        if low[module] == index[module]:
            component = []
            while True:
                top = stack.pop()
                component.append(top)
                if top == module:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return circles


def test_the_circle_finder_finds_a_circle() -> None:
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set()}) == []


def test_app_has_no_import_circles() -> None:
    modules = _modules("app")
    graph = {name: _imports(name, tree, modules) for name, tree in modules.items()}
    assert not _circles(graph)


# tests/app mirrors app/: a test of app/<package>/... sits in tests/app/<package>/ (a folder of
# tests/app may also be named after a top-level module, as tests/app/settings/ for
# app/settings.py). One exception: tests/app/service/ holds the tests of the whole service end
# to end (the real server's signals, reliability, the HTTP edge, schema fuzzing). No test sits in
# tests/app itself.
WHOLE_SERVICE = "service"


def _misplaced_tests(tests: Path, app: Path) -> list[str]:
    """The test files under `tests` whose folder does not name a package or module of `app`
    (or whose folder is not a package, so that two `test_api.py` would clash)."""
    wrong = []
    for path in sorted(tests.rglob("test_*.py")):
        folder = path.parent.relative_to(tests).parts
        if not folder:
            wrong.append(f"{path.name}: in tests/app itself")
            continue
        mirrored = app.joinpath(*folder)
        if folder[0] != WHOLE_SERVICE and not (
            (mirrored / "__init__.py").is_file() or mirrored.with_suffix(".py").is_file()
        ):
            wrong.append(f"{'/'.join(folder)}/{path.name}: no app/{'/'.join(folder)}")
        if not (path.parent / "__init__.py").is_file():
            wrong.append(f"{'/'.join(folder)}/{path.name}: its folder has no __init__.py")
    return wrong


def test_tests_of_the_app_sit_in_the_folder_of_the_package_they_test() -> None:
    assert not _misplaced_tests(ROOT / "tests" / "app", ROOT / "app")


def test_a_test_outside_the_mirror_is_found(tmp_path: Path) -> None:
    app, tests = tmp_path / "app", tmp_path / "tests"
    for folder in (app / "roster", tests / "roster", tests / "rosters", tests / "service"):
        folder.mkdir(parents=True)
        (folder / "__init__.py").touch()
    (app / "settings.py").touch()
    (tests / "settings").mkdir()
    for test in ("roster/test_api.py", "rosters/test_api.py", "service/test_signal.py",
                 "settings/test_documented.py", "test_new.py"):
        (tests / test).touch()
    assert _misplaced_tests(tests, app) == [
        "rosters/test_api.py: no app/rosters",
        "settings/test_documented.py: its folder has no __init__.py",
        "test_new.py: in tests/app itself",
    ]


def _kind_names_compared(tree: ast.Module, kinds: Collection[str]) -> list[int]:
    """The lines where a module compares something with a grader kind's name."""
    return sorted(
        node.lineno for node in ast.walk(tree) if isinstance(node, ast.Compare)
        for operand in [node.left, *node.comparators]
        for value in ([operand] if not isinstance(operand, ast.Tuple | ast.List | ast.Set)
                      else operand.elts)
        if isinstance(value, ast.Constant) and value.value in kinds
    )


def test_the_web_pages_never_ask_which_kind_an_item_is() -> None:
    # What a kind shows staff (its points breakdown, its solution) comes from its strategy
    # (graders/<kind>/kind.py): adding a kind touches no page.
    from graders.registry import registered_kinds

    kinds = set(registered_kinds())
    assert {"written", "numeric"} <= kinds
    asking = {name: lines for name, tree in _modules("app/web").items()
              if (lines := _kind_names_compared(tree, kinds))}
    assert not asking, asking
    assert _kind_names_compared(ast.parse('if item.grader in ("code", "x"): pass\n'
                                          'ok = "written" == kind\n'), kinds) == [1, 2]
