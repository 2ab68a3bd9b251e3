"""Imported by a fork server before it forks grading processes: the trusted side's work that
every process would otherwise repeat before its first zygote starts (listing the private root's
files, compiling the seccomp filter; about 60 ms each), done once and inherited by the fork.
Nothing here runs student code or starts a zygote."""

from __future__ import annotations

import contextlib

from graders.sandbox.root import root_plan
from graders.sandbox.seccomp_filter import filter_bpf


def warm() -> None:
    """Compute what the zygotes' configuration needs (cached for the process's life). A
    failure is left for the zygote start to report, as it would without warming."""
    with contextlib.suppress(OSError, ValueError):
        root_plan()
    with contextlib.suppress(ImportError, OSError):
        filter_bpf()


warm()
