"""Imported by a fork server started before its command knew which kinds it grades
(app/grading/preload.py, `start_fork_server`): every kind's grader and what it needs first."""

from __future__ import annotations

from importlib import import_module

from app.grading.preload import preload_modules

for _name in preload_modules(None):
    import_module(_name)
