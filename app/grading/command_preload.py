"""The last preload of the fork server `import` and `submit` start (app/grading/preload.py
`COMMAND_PRELOAD`): it imports COMMAND_KINDS' modules, named in the server. A module that cannot
be imported is left out, as the fork server leaves out any preload that cannot."""

from __future__ import annotations

import importlib

from app.grading.preload import COMMAND_KINDS, kind_modules


def preload() -> list[str]:
    """Import COMMAND_KINDS' modules; those imported."""
    imported = []
    for name in kind_modules(COMMAND_KINDS):
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        imported.append(name)
    return imported


preload()
