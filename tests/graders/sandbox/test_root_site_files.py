"""The private root leaves out the files only `site` imports: Debian's Python links its
sitecustomize.py to /etc/python3.X, which would bring /etc into the root (the zygote runs -S)."""

from __future__ import annotations

import os
from pathlib import Path

from graders.sandbox.root import RootPlan, _add_tree


def test_site_customisation_links_out_of_the_tree_are_not_copied(tmp_path: Path) -> None:
    etc = tmp_path / "etc" / "python3.11"
    etc.mkdir(parents=True)
    (etc / "sitecustomize.py").write_text("# Debian's hook\n")
    stdlib = tmp_path / "usr" / "lib" / "python3.11"
    stdlib.mkdir(parents=True)
    (stdlib / "json.py").write_text("")
    os.symlink(etc / "sitecustomize.py", stdlib / "sitecustomize.py")
    (stdlib / "usercustomize.py").write_text("")
    plan = RootPlan(executable="", sys_path=[])
    _add_tree(plan, stdlib, frozenset())
    assert plan.files == {str(stdlib / "json.py")}
    assert not any(str(tmp_path / "etc") in d for d in plan.dirs)
    assert plan.symlinks == {}
