"""What a grading pool's fork server imports first (app/grading/preload.py): the grader of
each kind the pool grades and what that grader needs on first use, for no other kind."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from app.grading.preload import BASE_PRELOAD, preload_modules
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

