"""What a grading pool's fork server imports first (app/grading/preload.py): the grader of
each kind the pool grades and what that grader needs on first use, for no other kind."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from app.grading.preload import (
    BASE_PRELOAD,
    COMMAND_KINDS,
    COMMAND_PRELOAD,
    kind_modules,
    preload_modules,
)
from graders.registry import KINDS, get_kind

BUILT = sorted(kind for kind in KINDS if get_kind(kind) is not None)


@settings(max_examples=40, deadline=None)
@given(kinds=st.sets(st.sampled_from([*sorted(KINDS), "unregistered-kind"])))
def test_a_pool_imports_the_graders_of_its_kinds_and_no_other(kinds: set[str]) -> None:
    names = preload_modules(kinds)
    assert names[:len(BASE_PRELOAD)] == list(BASE_PRELOAD)
    assert len(names) == len(set(names))
    for kind in BUILT:
        strategy = get_kind(kind)
        assert strategy is not None
        assert (strategy.grader_module in names) == (kind in kinds)
        if kind in kinds:
            assert set(strategy.preload_modules()) <= set(names)


def test_a_server_that_grades_any_kind_imports_every_grader() -> None:
    names = preload_modules(None)
    assert set(names) == set(preload_modules(KINDS))
    for name in names:  # a name that does not import would stop the fork server
        assert importlib.util.find_spec(name) is not None, name


def test_code_items_warm_the_sandboxs_host_side() -> None:
    assert {"graders.code.grader", "graders.sandbox.warm"} <= set(preload_modules({"code"}))
    assert "graders.written.grader" not in preload_modules({"code"})
    # Importing the warm-up leaves the root's plan and the filter computed for the forks.
    code = ("import graders.sandbox.warm\n"
            "from graders.sandbox.root import root_plan\n"
            "from graders.sandbox.seccomp_filter import filter_bpf\n"
            "print(root_plan.cache_info().currsize, filter_bpf.cache_info().currsize)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, check=True)
    # The filter is cached once compiled: where libseccomp is missing, the zygote says why.
    seccomp = importlib.util.find_spec("pyseccomp") is not None
    assert done.stdout.split() == ["1", "1" if seccomp else "0"]



def test_a_command_that_grades_now_starts_its_fork_server_before_its_own_imports() -> None:
    """`import` and `submit` start the fork server (what every grading process needs, and
    COMMAND_KINDS' modules named by the server) before their module is imported, without
    importing the kind registry; a command that grades in no pool starts none."""
    code = ("import sys\n"
            "from multiprocessing import forkserver\n"
            "from app.cli.program import load_command\n"
            "name = sys.argv[1]\n"
            "seen = []\n"
            "import app.grading.preload as preload\n"
            "start = preload.start_fork_server_now\n"
            "def spy():\n"
            "    seen.append(any(m in sys.modules for m in ('app.cli.grading', "
            "'graders.registry')))\n"
            "    start()\n"
            "preload.start_fork_server_now = spy\n"
            "load_command(name)\n"
            "server = forkserver._forkserver\n"
            "print(seen, server._forkserver_pid is not None, server._preload_modules)\n")
    command = list(COMMAND_PRELOAD)
    for name, expected in (("import", f"[False] True {command}"),
                           ("submit", f"[False] True {command}"),
                           ("grade", "[] False ['__main__']")):
        done = subprocess.run([sys.executable, "-c", code, name], capture_output=True, text=True,
                              check=True, timeout=120)
        assert done.stdout.strip() == expected, (name, done.stdout, done.stderr)


def test_kinds_known_to_import_nothing_leave_the_registry_unimported() -> None:
    code = ("import sys\nfrom app.grading.preload import preload_modules, BASE_PRELOAD\n"
            "assert preload_modules(()) == list(BASE_PRELOAD)\n"
            "print('graders.registry' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=60)
    assert done.stdout.strip() == "False"


def test_the_program_starts_a_grading_commands_fork_server_before_it_imports_typer() -> None:
    """The entry point starts `import`'s server first (load_command's start is then a no-op);
    `--help` of the program starts none."""
    code = ("import sys\n"
            "import app.grading.preload as preload\n"
            "start = preload.start_fork_server_now\n"
            "seen = []\n"
            "def spy():\n"
            "    seen.append('typer' in sys.modules)\n"
            "    start()\n"
            "preload.start_fork_server_now = spy\n"
            "from app.cli.main import main\n"
            "sys.argv = ['gradeformer', *sys.argv[1:]]\n"
            "try:\n"
            "    main()\n"
            "except SystemExit:\n"
            "    pass\n"
            "print(seen, file=sys.stderr)\n")
    for argv, expected in ((["import", "--help"], "[False, True]"), (["--help"], "[]")):
        done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True,
                              text=True, check=True, timeout=120)
        assert done.stderr.strip().splitlines()[-1] == expected, (argv, done.stderr)


def test_the_commands_server_imports_the_command_kinds_modules_and_no_document_reader() -> None:
    assert COMMAND_PRELOAD[0] == "app.grading.preload"
    assert "app.submissions.decoding" not in COMMAND_PRELOAD
    assert set(COMMAND_PRELOAD) - {"app.grading.command_preload"} <= set(BASE_PRELOAD)
    code = ("import sys\n"
            "import app.grading.command_preload as c\n"
            "print(' '.join(c.preload()))\n"
            "print('app.submissions.decoding' in sys.modules)\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True, timeout=120)
    imported, decoding = done.stdout.split("\n")[:2]
    assert imported.split() == kind_modules(COMMAND_KINDS)
    assert {"graders.code.grader", "graders.sandbox.warm"} <= set(imported.split())
    assert decoding == "False"
