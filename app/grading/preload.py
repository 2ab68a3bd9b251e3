"""What a grading pool's fork server imports before it forks the grading processes.

The pool's processes fork from a multiprocessing fork server (app/grading/retry.py). What the
server imports first, each process inherits; what it does not, each imports on its own on its
first document, on the way to its first result. So the server imports what grading needs, for
the kinds the pool grades: `import`, `submit` and a regrade read their rubric's first; a
server grades any.
"""

from __future__ import annotations

from collections.abc import Iterable

# What every grading process imports before its first document, whatever it grades: the
# worker; the upload checks' document reader, which forks from the same server (its PDF
# library too); the answer locator every document but a JSON one needs.
BASE_PRELOAD = ("app.grading.worker", "app.submissions.decoding", "pypdf",
                "graders.documents.locate")


def preload_modules(kinds: Iterable[str] | None = None) -> list[str]:
    """What the fork server imports before it forks processes that grade items of `kinds`
    (None: every kind, for a server that grades any assignment): each kind's grader and what
    it needs on first use (`Kind.preload`), imported once there instead of once per process on
    its first document. A rubric of code items does not import the written grader's model."""
    from graders.registry import KINDS, get_kind

    names = list(BASE_PRELOAD)
    for kind in sorted(KINDS) if kinds is None else sorted(set(kinds)):
        strategy = get_kind(kind)
        if strategy is not None:
            names += [name for name in strategy.preload_modules() if name not in names]
    return names

