"""The code group's key names what the code grader reads (graders/code/basis.py): two documents
with the same programs share their results, anything the grader reads changes the key."""

from __future__ import annotations

import ast
from dataclasses import replace

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.cache import CACHE_KEY, MemoryStore, ResultCache
from graders.cache.groups import key_basis
from graders.code.basis import code_basis
from graders.code.imports import document_imports, lends_conventional
from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.documents.submission import read_submission
from graders.engine import grade_submission
from graders.results import ItemResult
from graders.rubric import BUNDLED_RUBRICS, Question, load_rubric
from tests.graders.code.test_programs import B3_BODY, B4_BODY

LOADED = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml")
RUBRIC = LOADED.rubric
B3 = next(q for q in RUBRIC.questions if q.id == "B3")
B4 = next(q for q in RUBRIC.questions if q.id == "B4")
OTHERS = [q.id for q in RUBRIC.questions
          if not any(i.grader == "code" for i in q.items)]
FORMATS = ("json", "text", "markdown", "latex", "python", "pdf")

texts = st.text(st.characters(codec="utf-8"), max_size=60)


def _context(question: Question, submission: ParsedSubmission) -> GradingContext:
    return GradingContext(rubric=RUBRIC, question=question, submission=submission,
                          resources=GradingResources())


def _answer(question_id: str, text: str, start: int | None, note: str) -> LocatedAnswer:
    return LocatedAnswer(question_id, text, start=start,
                         end=None if start is None else start + len(text), note=note,
                         confidence=0.5 if note else 1.0)


@st.composite
def documents(draw: st.DrawFn) -> tuple[ParsedSubmission, ParsedSubmission]:
    """Two located submissions with the same B3 and B4 answer texts that differ in everything
    else: format, text, student, offsets, notes, other answers, missing reasons."""
    b3 = draw(st.none() | texts)
    b4 = draw(texts)

    def one() -> ParsedSubmission:
        answers = {q: _answer(q, draw(texts), draw(st.none() | st.integers(0, 10**6)),
                              draw(texts))
                   for q in draw(st.lists(st.sampled_from(OTHERS), unique=True))}
        if b3 is not None:
            answers["B3"] = _answer("B3", b3, draw(st.none() | st.integers(0, 10**6)), "")
        answers["B4"] = _answer("B4", b4, draw(st.none() | st.integers(0, 10**6)), draw(texts))
        return ParsedSubmission(text=draw(texts), format=draw(st.sampled_from(FORMATS)),
                                answers=answers, student_id=draw(st.none() | texts),
                                missing={q: draw(texts) for q in OTHERS[:2]})

    return one(), one()


@settings(max_examples=200, deadline=None)
@given(documents())
def test_documents_with_the_same_programs_share_the_basis(
        pair: tuple[ParsedSubmission, ParsedSubmission]) -> None:
    first, second = pair
    for question in (B3, B4):
        if (question.id in first.answers
                and _imports(question, first) == _imports(question, second)
                and _lent(question, first) == _lent(question, second)):
            assert code_basis(_context(question, first)) == code_basis(_context(question, second))


def _lent(question: Question, document: ParsedSubmission) -> bool:
    return lends_conventional(_context(question, document))


def _imports(question: Question, document: ParsedSubmission) -> list[str]:
    return [ast.unparse(s) for s in document_imports(_context(question, document))]


IMPORT_LINES = ["import numpy as np", "import numpy as jnp", "from numpy import sqrt, exp",
                "import math", "from math import *", "`import numpy as np`", "import numpy"]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(IMPORT_LINES), max_size=3),
       st.lists(st.sampled_from(IMPORT_LINES), max_size=3), texts,
       st.sampled_from(FORMATS))
def test_the_import_lines_a_program_may_borrow_are_in_its_basis(
        first: list[str], second: list[str], prose: str, form: str) -> None:
    """A text document lends its import lines above an answer to the program (a printed
    notebook imports NumPy once, in no answer): the same program under other import lines
    must not share its results (one that cannot run would get the marks of one that can)."""

    def document(lines: list[str]) -> ParsedSubmission:
        head = "\n".join([prose.replace("\n", " "), *lines, "## B3", ""])
        return ParsedSubmission(text=head + B3_BODY, format=form, answers={
            "B3": _answer("B3", B3_BODY, len(head), "")})

    one, other = document(first), document(second)
    lent = _imports(B3, one) != _imports(B3, other)
    assert (code_basis(_context(B3, one)) != code_basis(_context(B3, other))) == lent


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(FORMATS), st.sampled_from(FORMATS), texts)
def test_a_program_lent_the_usual_numpy_import_does_not_share_with_one_that_is_not(
        first: str, second: str, prose: str) -> None:
    """A typed or transcribed answer that uses `np` unbound is lent `import numpy as np`; the
    same text in a .py file has a real NameError: they must not share results, either way."""
    body = B3_BODY  # uses np and binds it nowhere

    def document(form: str) -> ParsedSubmission:
        head = prose.replace("\n", " ") + "\n## B3\n"
        return ParsedSubmission(text=head + body, format=form,
                                answers={"B3": _answer("B3", body, len(head), "")})

    one, other = document(first), document(second)
    differs = _lent(B3, one) != _lent(B3, other)
    assert (code_basis(_context(B3, one)) != code_basis(_context(B3, other))) == differs


@settings(max_examples=200, deadline=None)
@given(documents(), texts, texts)
def test_what_the_code_grader_reads_changes_the_basis(
        pair: tuple[ParsedSubmission, ParsedSubmission], b3: str, b4: str) -> None:
    document, _ = pair
    before = code_basis(_context(B4, document))
    own = dict(document.answers)
    own["B4"] = replace(own["B4"], text=b4)
    changed = code_basis(_context(B4, replace(document, answers=own)))
    assert (changed == before) == (b4 == document.answers["B4"].text)
    # B4 borrows imports from B3's answer: B3's text, or its absence, is read too.
    earlier = dict(document.answers)
    earlier["B3"] = LocatedAnswer("B3", b3)
    was = document.answers.get("B3")
    changed = code_basis(_context(B4, replace(document, answers=earlier)))
    assert (changed == before) == (was is not None and was.text == b3)
    without = {q: a for q, a in document.answers.items() if q != "B3"}
    changed = code_basis(_context(B4, replace(document, answers=without)))
    assert (changed == before) == (was is None)
    # B3 comes first: B4's answer is not read for it.
    if was is not None:
        assert code_basis(_context(B3, replace(document, answers=own))) == \
            code_basis(_context(B3, document))


def test_a_notebook_is_keyed_by_the_whole_located_document() -> None:
    # Its cells run in order: everything before the answer is part of the program.
    notebook = ParsedSubmission(text="x", format="notebook",
                                answers={"B3": LocatedAnswer("B3", "code", start=0, end=4)})
    assert code_basis(_context(B3, notebook)) is None
    assert key_basis("code", _context(B3, notebook), "whole") == "whole"
    as_text = replace(notebook, format="text")
    assert key_basis("code", _context(B3, as_text), "whole").startswith("code:")


def _cached(resources: GradingResources) -> ResultCache:
    found: ResultCache = resources.shared(CACHE_KEY, lambda: ResultCache(MemoryStore()))
    return found


def _code_results(raw: bytes, name: str, resources: GradingResources) -> list[ItemResult]:
    parsed = read_submission(raw, name, None, RUBRIC)
    return [r for r in grade_submission(LOADED, parsed, resources).items if r.grader == "code"]


def test_same_programs_in_other_documents_reuse_identical_results(
        resources: GradingResources) -> None:
    """Two uploads with the same programs but another student, other answers, other prose and
    so other offsets: the code results of the second come from the first's cache entries and
    equal grading it alone."""
    b3 = "import numpy as np\n" + B3_BODY.replace("weights @ V", "weights @ V * 1.5")

    def markdown(student: str, b1: str) -> bytes:
        return (f"Student: {student}\n\n## B1\n\n{b1}\n\n## B3\n\n```python\n" + b3
                + "```\n\n## B4\n\n```python\n" + B4_BODY + "```\n").encode()

    one = markdown("someone", "1,769,472 parameters")
    other = markdown("someone else entirely", "three matrices of 768 x 768: 1,769,472, I think")
    alone = _code_results(other, "hw.md", resources)
    cached = GradingResources(options=dict(resources.options))
    try:
        cache = _cached(cached)
        first = _code_results(one, "hw.md", cached)
        cache.reset_stats()
        second = _code_results(other, "hw.md", cached)
        stats = cache.reset_stats()
    finally:
        cached.close()
    assert stats.groups_cached == 2 and stats.groups_run == 1 and stats.code_runs == 0
    assert second == alone == first
    assert sum(r.points for r in alone) < 20  # a wrong B3: the shared results are not all full
