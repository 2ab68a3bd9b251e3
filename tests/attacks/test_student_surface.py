"""An audit of everything a student can reach, on the real server (`gradeformer serve`, a temp
SQLite file, real grading processes). A student uploads what students upload — answers as JSON
(numbers, code that crashes, loops forever or prints and returns garbage, prose that goes to
review), a notebook, a LaTeX file, a PDF — another student uploads too, and then the student
walks every GET endpoint the OpenAPI schema lists, every student page, and the error answers
(problem+json) of what they may not do: before release, after an override and a regrade, and
after publication with a regrade request answered.

The secrets are not listed by hand. They are collected from the rubric (its graders' configs:
patterns, phrasings, reference statements, expected values and expressions; the reference code
beside it) and from the staff view of the same submissions (staff feedback, evidence, grader
versions), less what the student is meant to read (their own files, the prompts, the feedback
strings written for students, and once published the solutions and student feedback). A leak
added anywhere later fails this module."""

from __future__ import annotations

import html
import json
import re
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from app.db.session import make_engine, make_sessionmaker
from graders.disclosure import answer_values, solution_text
from graders.rubric import Question, Rubric, load_rubric
from tests.app.conftest import copy_sqlite, make_tokens
from tests.app.pdfs import text_pdf
from tests.support.faultkit import Server

REPO = Path(__file__).resolve().parents[2]
RUBRICS = REPO / "rubrics"
SLUG = "transformer-basics"
OTHER = "cs224n-attention"  # symbolic items; its grades are never published here
SYMBOLIC = {"answers": {"1b": "q = k_a + k_b", "1c.i": "q = \\beta (\\mu_a - \\mu_b)"}}
# Keys of a grader's config whose strings are the key or how it is found.
SECRET_KEYS = {"patterns", "phrasings", "reference", "statement", "expected", "require",
               "full_credit_if_mentions", "large_scalars", "value"}
# Keys of a config (or model) whose strings are written for students.
PUBLIC_KEYS = {"feedback", "feedback_without_scalar", "label", "name", "hint"}
# JSON keys only staff answers carry.
STAFF_KEYS = {"evidence", "confidence", "machine_points", "machine_status", "override",
              "grader", "grader_version", "rubric_hash", "student_sees", "student_feedback",
              "execution_time", "user_id"}
# Distinctive strings of the other student's upload and file name.
BOB_MARK = "zebrabob"
BOB_FILE = "bob-zebrabob-homework.md"
CRASH = ("import os\n\ndef attention(Q, K, V):\n"
         "    raise RuntimeError('crashed in ' + os.getcwd())\n")
LOOP = "def masked_attention(Q, K, V, mask=None):\n    while True:\n        pass\n"
HOSTILE = ("import numpy as np\n\ndef attention(Q, K, V):\n    print(repr(Q))\n"
           "    print('/etc/passwd', flush=True)\n    return float('nan'), object()\n")
WRITTEN = "A perceptron draws one line; XOR needs two, so a deeper net helps."
JSON_DOC = {"answers": {"A1": WRITTEN, "b1.d_head": "65", "b1.per_matrix": "589824",
                        "b1.total": "3 x 589,824", "B2": "the keys", "B3": CRASH, "B4": LOOP}}
NOTEBOOK = {"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
    {"cell_type": "markdown", "metadata": {}, "source": ["## B1\n", "d_head = 96\n"]},
    {"cell_type": "markdown", "metadata": {}, "source": ["## B3\n"]},
    {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": [],
     "source": HOSTILE.splitlines(keepends=True)},
    {"cell_type": "markdown", "metadata": {}, "source": ["## A3\n", "Attention is order blind."]},
]}
LATEX = (r"\section*{A2} A stack of linear maps is one linear map $W_2 W_1 x$."
         "\n" r"\section*{B1} $d_{head} = 768/12 = 64$" "\n")
PDF_PAGES = ["B1 d_head is 48", "A4 the queries ask and the keys answer"]


@dataclass
class Course:
    base: str
    tokens: dict[str, str]
    directory: Path
    alice: list[int] = field(default_factory=list)
    bob: list[int] = field(default_factory=list)
    request_id: int | None = None

    def client(self, who: str) -> httpx.Client:
        return httpx.Client(base_url=self.base, timeout=120,
                            headers={"Authorization": f"Bearer {self.tokens[who]}"})

    @contextmanager
    def browser(self, who: str) -> Iterator[httpx.Client]:
        """A signed-in browser: the session cookie, no token."""
        with httpx.Client(base_url=self.base, timeout=120) as client:
            signed = client.post("/sign-in", data={"token": self.tokens[who], "next": "/"})
            assert signed.status_code == 303, signed.text
            yield client


def _upload(course: Course, who: str, slug: str = SLUG, **kwargs: Any) -> int:
    with course.client(who) as client:
        answer = client.post(f"/api/v1/assignments/{slug}/submissions", params={"wait": "true"},
                             **kwargs)
    assert answer.status_code in (200, 201), answer.text
    return int(answer.json()["id"])


@pytest.fixture(scope="module")
def course(tmp_path_factory: pytest.TempPathFactory, sqlite_template: Path) -> Iterator[Course]:
    directory = tmp_path_factory.mktemp("surface")
    url = copy_sqlite(sqlite_template, directory)
    engine = make_engine(url)
    tokens = make_tokens(make_sessionmaker(engine))
    engine.dispose()
    server = Server({"GRADEFORMER_DATABASE_URL": url, "GRADEFORMER_WORKERS": "1"},
                    directory / "server.log")
    server.start()
    try:
        c = Course(server.base, tokens, directory)
        c.alice.append(_upload(c, "alice", OTHER, json=SYMBOLIC))
        c.alice.append(_upload(c, "alice", json={"answers": {**JSON_DOC["answers"],
                                                             "B3": HOSTILE}}))
        for name, body in (("hw.ipynb", json.dumps(NOTEBOOK).encode()),
                           ("hw.tex", LATEX.encode()), ("hw.pdf", text_pdf(PDF_PAGES))):
            c.alice.append(_upload(c, "alice", files={"file": (name, body)}))
        # the last upload is the one that counts
        c.alice.append(_upload(c, "alice", json=JSON_DOC))
        c.bob.append(_upload(c, "bob", files={"file": (
            BOB_FILE, f"## A1\n{BOB_MARK} says XOR is separable\n## B1\n{BOB_MARK} 64\n")}))
        yield c
    finally:
        server.signal_group(signal.SIGTERM, timeout=60)


def _leaves(value: Any, key: str = "") -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for k, inner in value.items():
            yield from _leaves(inner, str(k))
    elif isinstance(value, list | tuple):
        for inner in value:
            yield from _leaves(inner, key)
    else:
        yield key, value


def _own_text(course: Course) -> str:
    """Everything alice wrote herself (her uploads), which her pages may show back."""
    return "\n".join([json.dumps(JSON_DOC), json.dumps(SYMBOLIC), CRASH, LOOP, HOSTILE,
                      json.dumps(NOTEBOOK), LATEX, *PDF_PAGES]).lower()


def _rubrics(published: bool) -> list[tuple[Rubric, bool]]:
    """Each assignment alice answered, and whether its grades are published."""
    return [(load_rubric(RUBRICS / f"{slug}.yaml").rubric, published and slug == SLUG)
            for slug in (SLUG, OTHER)]


def _public(rubric: Rubric, published: bool, staff: list[dict[str, Any]]) -> str:
    """What a student may read: the handout, strings written for students, and once published
    the solutions and each item's student feedback."""
    parts = [rubric.title, rubric.description]
    for question in rubric.questions:
        parts += [question.id, question.title, question.prompt, *question.labels]
        for item in question.items:
            parts += [str(v) for k, v in _leaves(item.config) if k in PUBLIC_KEYS]
            if item.title_public or published:
                parts.append(item.title)
            if published:
                parts.append(solution_text(item))
    released = {i.id for i in rubric.items() if published or rubric.visibility_of(i) == "visible"}
    for body in staff:
        for i in body["items"]:
            if i["id"] in released:
                parts += [i["student_feedback"] or "", (i["override"] or {}).get("comment") or ""]
    return "\n".join(parts).lower()


def _fragments(text: str) -> Iterator[str]:
    """A staff text's sentences and quoted phrases, each long enough to be telling."""
    for piece in re.split(r"(?<=[.;:!?])\s+|['\u2018\u2019\u201c\u201d]", text):
        piece = piece.strip(" .;:")
        if len(piece) >= 16:
            yield piece


@dataclass
class Secrets:
    texts: set[str]
    values: set[str]
    ids: set[str]


def _key_of(question: Question, published: bool, values: set[str], ids: set[str]) -> set[str]:
    """The question's answer key as its rubric holds it (texts returned; the answer values and
    the ids that name what is checked added to `values` and `ids` until published)."""
    texts: set[str] = set()
    for item in question.items:
        texts |= {str(v) for k, v in _leaves(item.config)
                  if k in SECRET_KEYS and isinstance(v, str) and len(v) >= 8}
        if not published:
            values |= set(answer_values(item))
            texts.add(solution_text(item))
            named = item.visibility == "visible" or item.title_public
            if item.id != question.id and not named:
                ids.add(item.id)
    return texts


def _secrets(course: Course, published: bool) -> Secrets:
    with course.client("prof") as prof:
        staff = [prof.get(f"/api/v1/submissions/{sid}").json() for sid in course.alice]
        bob = [prof.get(f"/api/v1/submissions/{sid}").json() for sid in course.bob]
    rubrics = _rubrics(published)
    allowed = "\n".join([*(_public(r, p, staff) for r, p in rubrics), _own_text(course)])
    texts: set[str] = {BOB_MARK, BOB_FILE, str(REPO), str(course.directory), "Traceback"}
    texts |= {str(v) for _, v in _leaves(bob) if isinstance(v, str) and BOB_MARK in v}
    values: set[str] = set()
    ids: set[str] = set()
    for rubric, shown in rubrics:
        for question in rubric.questions:
            texts |= _key_of(question, shown, values, ids)
    for code in (RUBRICS / SLUG).glob("*.py"):
        texts |= {line.strip() for line in code.read_text().splitlines()
                  if len(line.strip()) >= 24 and not line.strip().startswith("#")}
    for body in staff:
        for item in body["items"]:
            texts.add(f"grader {item['grader']} {item['grader_version']}")
            texts |= set(_fragments(item["feedback"]))
            texts |= {f for _, v in _leaves(item["evidence"]) if isinstance(v, str)
                      for f in _fragments(v)}
    texts = {t for t in texts if t and t.lower() not in allowed}
    values = {v for v in values if not re.search(rf"(?<![\w.,]){re.escape(v)}(?![\w]|[.,]\d)",
                                                 allowed)}
    return Secrets(texts, values, ids)


def _student_paths(course: Course) -> list[str]:
    """Every GET the schema declares, with alice's ids filled in, and every student page."""
    with course.client("alice") as alice:
        spec = alice.get("/openapi.json").json()
    sid = course.alice[-1]
    ids = {"slug": SLUG, "submission_id": sid, "item_id": "b1.d_head", "question": "B1",
           "request_id": course.request_id or 1, "job_id": 1, "group_id": 1, "token_id": 1}
    paths = [p.format(**ids) for p, item in spec["paths"].items() if "get" in item]
    paths += [f"/api/v1/submissions/{s}" for s in course.alice[:-1]]
    paths.append(f"/api/v1/assignments/{OTHER}")
    pages = ["/", "/assignments", f"/assignments/{SLUG}/submit", f"/assignments/{OTHER}/submit",
             *(f"/submissions/{s}" for s in course.alice), f"/assignments/{SLUG}/regrade-requests",
             f"/regrade-requests/{ids['request_id']}", "/static/web.js"]
    return paths + pages


def _refused(course: Course) -> list[httpx.Response]:
    """What a student may not do or sends wrong: each answer's body is scanned too."""
    bob_sid = course.bob[0]
    with course.client("alice") as alice:
        return [
            alice.get(f"/api/v1/submissions/{bob_sid}"),
            alice.get(f"/api/v1/submissions/{bob_sid}/results.json"),
            alice.get("/api/v1/assignments/no-such-course"),
            alice.get("/api/v1/submissions/99999999999999999999"),
            alice.put(f"/api/v1/submissions/{course.alice[-1]}/items/b1.d_head/override",
                      json={"points": 4}),
            alice.post(f"/api/v1/assignments/{SLUG}/regrade"),
            alice.post(f"/api/v1/submissions/{course.alice[-1]}/items/b3.row_softmax/"
                       "regrade-requests", json={"comment": "please"}),
            alice.post(f"/api/v1/submissions/{bob_sid}/items/b1.d_head/regrade-requests",
                       json={"comment": "please"}),
            alice.post(f"/api/v1/assignments/{SLUG}/submissions", content=b'{"answers": {',
                       headers={"content-type": "application/json"}),
            alice.post(f"/api/v1/assignments/{SLUG}/submissions",
                       files={"file": ("hw.ipynb", b'{"cells": [')}),
            alice.post(f"/api/v1/assignments/{SLUG}/submissions",
                       files={"file": ("hw.pdf", b"%PDF-1.4 truncated")}, params={"wait": "true"}),
            alice.delete(f"/api/v1/assignments/{SLUG}/publish"),
        ]


def _findings(where: str, text: str, secrets: Secrets) -> list[str]:
    plain = html.unescape(text)
    lower = plain.lower()
    found = [f"{where}: {t[:60]!r}" for t in secrets.texts if t.lower() in lower]
    found += [f"{where}: value {v}" for v in secrets.values
              if re.search(rf"(?<![\w.,]){re.escape(v)}(?![\w]|[.,]\d)", plain)]
    if " 200" in where:  # a refusal may echo the path the student typed
        found += [f"{where}: item id {i}" for i in secrets.ids
                  if re.search(rf"(?<![\w.]){re.escape(i)}(?![\w])", plain)]
    return found


def _sweep(course: Course, published: bool) -> tuple[list[str], list[str]]:
    secrets = _secrets(course, published)
    assert secrets.texts, "staff read nothing the student does not: nothing to look for"
    found: list[str] = []
    reached: list[str] = []
    with course.client("alice") as alice, course.browser("alice") as browser:
        for path in _student_paths(course):
            client = alice if path.startswith("/api/") else browser
            answer = client.get(path)
            if answer.status_code == 200:
                reached.append(path)
            if path == "/static/web.js":
                continue
            found += _findings(f"{path} {answer.status_code}", answer.text, secrets)
            if "json" in answer.headers.get("content-type", "") and answer.status_code == 200:
                keys = {k for k, v in _keys(answer.json()) if v is not None} & STAFF_KEYS
                found += [f"{path}: staff field {k}" for k in keys]
    for answer in _refused(course):
        where = f"{answer.request.method} {answer.request.url.path} {answer.status_code}"
        assert answer.status_code < 500, where
        found += _findings(where, answer.text, secrets)
    return found, reached


def _keys(value: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(value, dict):
        for key, inner in value.items():
            yield str(key), inner
            yield from _keys(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _keys(inner)


def _regrade(course: Course) -> None:
    with course.client("prof") as prof:
        started = prof.post(f"/api/v1/assignments/{SLUG}/regrade")
        assert started.status_code == 202, started.text
        job = started.headers["Location"]
        for _ in range(600):
            if prof.get(job).json()["status"] != "running":
                return
            time.sleep(0.5)
    raise AssertionError("the regrade did not finish in 5 minutes")


def test_a_student_reads_nothing_staff_only_anywhere(course: Course) -> None:
    before, reached = _sweep(course, published=False)
    with course.client("prof") as prof:
        changed = prof.put(f"/api/v1/submissions/{course.alice[-1]}/items/b1.d_head/override",
                           json={"points": 2, "comment": "Half: the working was right."})
        assert changed.status_code == 200, changed.text
    _regrade(course)
    overridden, _ = _sweep(course, published=False)
    with course.client("prof") as prof:
        assert prof.post(f"/api/v1/assignments/{SLUG}/publish").status_code == 200
    with course.client("alice") as alice:
        asked = alice.post(f"/api/v1/submissions/{course.alice[-1]}/items/b1.per_matrix/"
                           "regrade-requests", json={"comment": "My answer says two lines."})
        assert asked.status_code == 201, asked.text
        course.request_id = int(asked.json()["id"])
    with course.client("prof") as prof:
        answered = prof.post(f"/api/v1/regrade-requests/{course.request_id}/answer",
                             json={"reply": "Kept: two lines is not a reason.", "points": 1})
        assert answered.status_code in (200, 201), answered.text
    published, reached_after = _sweep(course, published=True)
    # the walk reached the student's own answers, pages and files
    assert len(reached) >= 12 and len(reached_after) >= 14, (reached, reached_after)
    leaks = [f"{phase}: {leak}" for phase, found in (
        ("before release", before), ("after an override and a regrade", overridden),
        ("published", published)) for leak in found]
    assert not leaks, "\n".join(leaks)
