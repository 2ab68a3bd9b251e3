"""Result-cache poisoning across students through what the code grader reads outside the
answer. In a text document (Markdown, LaTeX, a PDF, a transcript) an import line above the
first question, in no answer, is lent to the programs below it (a printed notebook imports
NumPy once; graders/code/imports.py). The cached results of a question were keyed by its
answer and the earlier code answers, not by those lines: one student's program that uses `np`
under an `import numpy as np` line earned full marks and was cached; another student's same
program with no such line (it cannot run: NameError) was then given those marks from the
cache, and in the other order the student with the import got the other's zero.

Each document here is graded by a server that saw the other one first and by a fresh server
(its own empty cache) that did not: every item gets the same status and points either way.
The program uses `math`, not `np`: a typed answer that uses `np` unbound is lent the usual
NumPy import whatever the lines above it (graders/code/imports.py), so `np` would not tell the
documents apart; `math` is lent only by a line of the document."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.app.conftest import Api, copy_sqlite
from tests.attacks.conftest import UPLOAD, _app_on

PROGRAM = """def attention(Q, K, V):
    scores = Q @ K.T / math.sqrt(K.shape[-1])
    weights = math.e ** (scores - scores.max(axis=-1, keepdims=True))
    weights = weights / weights.sum(axis=-1, keepdims=True)
    return weights @ V, weights
"""
DOCUMENTS = {
    "imports math above the questions": "import math\n\n",
    "imports nothing": "My answers.\n\n",
    "imports math under another name": "import math as m\n\n",
}


def _markdown(preamble: str) -> bytes:
    return (preamble + "## B3\n\n```python\n" + PROGRAM + "```\n").encode()


@pytest.fixture(scope="module")
def fresh(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Api]:
    """A second server: its own database and its own (empty) result cache."""
    yield from _app_on(copy_sqlite(sqlite_template, tmp_path_factory.mktemp("fresh")))


def _grade(api: Api, student: str, name: str) -> list[tuple[str, str, object]]:
    answer = api.client.post(UPLOAD, params={"wait": "true"},
                             files={"file": ("answers.md", _markdown(DOCUMENTS[name]),
                                             "text/markdown")},
                             headers=api.auth(student))
    assert answer.status_code == 201, (name, answer.text)
    staff = api.client.get(f"/api/v1/submissions/{answer.json()['id']}",
                           headers=api.auth("prof")).json()
    return [(i["id"], i["status"], i["points"]) for i in staff["items"]
            if i["id"].startswith("b3.")]


def test_a_program_is_graded_with_the_lines_it_borrowed_not_anothers(target: Api,
                                                                      fresh: Api) -> None:
    names = list(DOCUMENTS)
    shared = {name: _grade(target, "alice" if n % 2 else "bob", name)
              for n, name in enumerate(names)}
    alone = {name: _grade(fresh, "bob" if n % 2 else "alice", name)
             for n, name in enumerate(reversed(names))}
    # the documents grade differently on their own: there is something to share wrongly
    assert alone[names[0]] != alone[names[1]], alone
    differ = {name: (shared[name], alone[name]) for name in names
              if shared[name] != alone[name]}
    assert not differ, differ

