"""pydantic's plugin loader without importing importlib.metadata while plugins are off.

pydantic imports `pydantic.plugin._loader` when it builds its first model, and that module
imports `importlib.metadata` (email, zipfile, csv, importlib.resources: about 8% of an offline
`gradeformer grade FILE`) only to list entry points, which it never does while
PYDANTIC_DISABLE_PLUGINS disables every plugin (app/cli/main.py sets it unless the operator
has). Until something else is asked of it, the loader is this stand-in: `get_plugins` answers
what pydantic's answers while plugins are off, `()`, and in any other case, or for any other
name, the real loader is imported in its place and answers.
"""

from __future__ import annotations

import importlib
import os
import sys
import types
from collections.abc import Iterable
from typing import Any

LOADER = "pydantic.plugin._loader"
# The values with which pydantic's own get_plugins returns no plugin.
ALL_OFF = ("__all__", "1", "true")


def _real() -> types.ModuleType:
    if isinstance(sys.modules.get(LOADER), _StandIn):
        del sys.modules[LOADER]
    return importlib.import_module(LOADER)


class _StandIn(types.ModuleType):
    def __getattr__(self, name: str) -> Any:
        if name.startswith("__"):  # what the import system asks of any module (`__path__`)
            raise AttributeError(name)
        return getattr(_real(), name)


def get_plugins() -> Iterable[Any]:
    if os.environ.get("PYDANTIC_DISABLE_PLUGINS") in ALL_OFF:
        return ()
    loaded: Iterable[Any] = _real().get_plugins()
    return loaded


def stand_in() -> None:
    """The stand-in becomes the loader, unless pydantic has loaded its own already."""
    if LOADER in sys.modules:
        return
    module = _StandIn(LOADER, __doc__)
    module.get_plugins = get_plugins  # type: ignore[attr-defined]
    sys.modules[LOADER] = module
