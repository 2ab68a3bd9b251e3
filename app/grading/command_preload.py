"""The last preload of the fork server that `import` and `submit` start before they know their
rubric (app/grading/preload.py `COMMAND_PRELOAD`): importing it imports what the graders of
COMMAND_KINDS need, named here, in the server, so that the command does not import the kind
registry before it starts the server. A module that cannot be imported is left out, as the
fork server leaves out any preload that cannot."""

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
