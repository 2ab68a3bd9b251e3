"""pydantic's plugin loader stands in without importlib.metadata while plugins are off, and is
pydantic's own as soon as they are not (app/cli/plugins.py)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.shared_data import REPO

PROBE = """
import sys
import app.cli.main
import graders.results
from pydantic import BaseModel
class Probe(BaseModel):
    n: int
assert Probe.model_validate({"n": "3"}).n == 3
from pydantic.plugin._loader import get_plugins
print(list(get_plugins()), "importlib.metadata" in sys.modules,
      type(sys.modules["pydantic.plugin._loader"]).__name__)
"""


def _probe(value: str | None) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYDANTIC_DISABLE_PLUGINS"}
    if value is not None:
        env["PYDANTIC_DISABLE_PLUGINS"] = value
    done = subprocess.run([sys.executable, "-c", PROBE], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120, check=True)
    return done.stdout.split()


@pytest.mark.parametrize("value", [None, "__all__", "1", "true"])
def test_with_plugins_off_models_build_without_importlib_metadata(value: str | None) -> None:
    assert _probe(value) == ["[]", "False", "_StandIn"]


@pytest.mark.parametrize("value", ["", "some_plugin"])
def test_with_plugins_on_pydantic_loads_them_itself(value: str) -> None:
    # no plugin is installed here: pydantic's own loader looked for them and found none
    assert _probe(value) == ["[]", "True", "module"]
