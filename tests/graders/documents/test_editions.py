"""A submission's declared handout edition (graders.documents.edition): a question it does not
ask counts for nothing whatever the document holds; one it asks is graded, or missing, as for
any student; without a declaration nothing changes.

The class of real writing: a class whose handout changed between years (cs224n's 2023 handout
has no 1e) hands in JSON from an LMS, Markdown or a notebook made from the year's template,
answering any subset of the questions, some under labels of another year's questions."""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

import nbformat
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.context import GradingResources
from graders.documents import InvalidDocument, read_submission
from graders.documents.edition import (
    MAX_CHARS,
    EditionError,
    check_declared,
    clean_edition,
    document_edition,
)
from graders.engine import GradingOutcome, grade_submission
from graders.results import Status
from graders.rubric import LoadedRubric, parse_rubric

EDITIONS = ["2021", "2022", "2023"]


def _rubric(asked_by: list[list[str]], points: list[int], editions: list[str] = EDITIONS,
            cues: tuple[str, ...] = ()) -> LoadedRubric:
    questions = []
    for n, (who, worth) in enumerate(zip(asked_by, points, strict=True), start=1):
        question: dict[str, Any] = {
            "id": f"q{n}", "labels": [f"Q{n}"], "answer_kind": "numeric",
            "cues": [f"{cue} {n}" for cue in cues],
            "items": [{"id": f"q{n}.value", "points": worth, "grader": "numeric",
                       "config": {"expected": 10 * n, "kind": "integer"}}],
        }
        if who:
            question["handouts"] = who
        questions.append(question)
    data: dict[str, Any] = {"slug": "editions", "title": "Editions", "questions": questions}
    if editions:
        data["handouts"] = editions
    return parse_rubric(yaml.safe_dump(data))


def _grade(loaded: LoadedRubric, raw: bytes, name: str, handout: str | None = None
           ) -> GradingOutcome:
    parsed = read_submission(raw, name, None, loaded.rubric, handout)
    return grade_submission(loaded, parsed, GradingResources(options={}))


questions = st.lists(
    st.tuples(st.lists(st.sampled_from(EDITIONS), unique=True, max_size=2),
              st.integers(1, 4)),
    min_size=1, max_size=5,
)


@settings(max_examples=40, deadline=None)
@given(shape=questions, data=st.data())
def test_a_declared_edition_counts_only_the_questions_it_asks(
    shape: list[tuple[list[str], int]], data: st.DataObject
) -> None:
    asked_by = [who for who, _ in shape]
    worth = [p for _, p in shape]
    loaded = _rubric(asked_by, worth)
    ids = [f"q{n}" for n in range(1, len(shape) + 1)]
    answered = data.draw(st.lists(st.sampled_from(ids), unique=True))
    right = data.draw(st.lists(st.booleans(), min_size=len(answered), max_size=len(answered)))
    edition = data.draw(st.sampled_from(EDITIONS))
    where = data.draw(st.sampled_from(["upload", "document", "both"]))
    answers = {q: str(10 * int(q[1:]) + (0 if ok else 1)) for q, ok in zip(answered, right,
                                                                        strict=True)}
    document: dict[str, Any] = {"answers": answers or {"q1": ""}}
    if where != "upload":
        document["handout"] = edition
    raw = json.dumps(document).encode()
    outcome = _grade(loaded, raw, "s.json", edition if where != "document" else None)
    # the oracle: the same answers graded by a rubric that asks every question of everyone
    plain = _grade(_rubric([[] for _ in shape], worth, editions=[]), raw, "s.json")
    by_id = {r.question: r for r in outcome.items}
    for n, question in enumerate(ids):
        result = by_id[question]
        if asked_by[n] and edition not in asked_by[n]:
            assert result.max_points == 0 and result.points == 0
            assert result.status is Status.MISSING
            assert result.student_feedback is not None and edition in result.student_feedback
            assert "does not ask" in result.feedback
        elif answers.get(question):
            assert result == plain.items[n]
        else:
            assert result.status is Status.MISSING and result.max_points == worth[n]
            assert "Not counted" not in result.feedback
    assert outcome.max_points == sum(w for who, w in shape if not who or edition in who)


def _markdown(ids: list[str]) -> bytes:
    return "\n\n".join(f"Q{q[1:]}: {10 * int(q[1:])}" for q in ids).encode() + b"\n"


@settings(max_examples=25, deadline=None)
@given(shape=questions, data=st.data())
def test_labelled_answers_to_questions_another_edition_asks_are_set_aside(
    shape: list[tuple[list[str], int]], data: st.DataObject
) -> None:
    loaded = _rubric([who for who, _ in shape], [p for _, p in shape])
    ids = [f"q{n}" for n in range(1, len(shape) + 1)]
    edition = data.draw(st.sampled_from(EDITIONS))
    parsed = read_submission(_markdown(ids), "s.md", None, loaded.rubric, edition)
    assert parsed.handout == edition
    for question, (who, _) in zip(ids, shape, strict=True):
        if who and edition not in who:
            assert question not in parsed.answers
            assert "not graded" in parsed.missing[question]
        else:
            assert parsed.answers[question].text.strip() == str(10 * int(question[1:]))
    outcome = grade_submission(loaded, parsed, GradingResources(options={}))
    assert outcome.total == outcome.max_points  # every answer it asks is right


def test_without_a_declaration_nothing_changes() -> None:
    loaded = _rubric([[], ["2021"]], [2, 1])
    raw = _markdown(["q1", "q2"])
    parsed = read_submission(raw, "s.md", None, loaded.rubric)
    assert parsed.handout is None and parsed == read_submission(raw, "s.md", None,
                                                                loaded.rubric, None)
    # under its own label an answer to an edition-only question is graded, as before
    outcome = grade_submission(loaded, parsed, GradingResources(options={}))
    assert outcome.total == outcome.max_points == 3
    # unanswered it counts 0 of 0 for an undeclared student, as before
    bare = _grade(loaded, _markdown(["q1"]), "s.md")
    q2 = next(r for r in bare.items if r.question == "q2")
    assert q2.max_points == 0 and "2022, 2023 handout does not ask q2" in q2.feedback


def test_an_unanswered_question_the_declared_edition_asks_is_missing_not_uncounted() -> None:
    loaded = _rubric([[], ["2021"]], [2, 1])
    outcome = _grade(loaded, _markdown(["q1"]), "s.md", "2021")
    q2 = next(r for r in outcome.items if r.question == "q2")
    assert q2.status is Status.MISSING and q2.max_points == 1
    assert outcome.max_points == 3


def test_a_weakly_located_answer_is_graded_for_review_when_the_edition_asks_it() -> None:
    # no labels: the answers name what they are about (the rubric's cues), in one passage
    loaded = _rubric([[], ["2021"], []], [2, 1, 1], cues=("stage",))
    raw = b"For stage 1: 10\n\nFor stage 2: 20\n\nFor stage 3: 30\n"
    undeclared = read_submission(raw, "s.md", None, loaded.rubric)
    assert "q2" not in undeclared.answers  # content alone never says the edition asked it
    declared = read_submission(raw, "s.md", None, loaded.rubric, "2021")
    assert declared.answers["q2"].strength == "weak"  # the declaration says it was asked
    outcome = grade_submission(loaded, declared, GradingResources(options={}))
    q2 = next(r for r in outcome.items if r.question == "q2")
    assert q2.status is Status.NEEDS_REVIEW and q2.points == q2.max_points == 1


def test_a_notebook_declares_its_edition_in_its_metadata() -> None:
    loaded = _rubric([[], ["2021"]], [2, 1])
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell("Q1: 10"),
                      nbformat.v4.new_markdown_cell("Q2: 20")]
    notebook.metadata["gradeformer"] = {"handout": "2022"}
    raw = nbformat.writes(notebook).encode()
    parsed = read_submission(raw, "s.ipynb", None, loaded.rubric)
    assert parsed.handout == "2022" and "q2" not in parsed.answers
    notebook.metadata["gradeformer"] = {"handout": ["2022"]}
    with pytest.raises(InvalidDocument, match=r"metadata gradeformer\.handout"):
        read_submission(nbformat.writes(notebook).encode(), "s.ipynb", None, loaded.rubric)


def test_declarations_that_disagree_are_refused_and_an_unknown_one_grades_as_undeclared(
) -> None:
    loaded = _rubric([[], ["2021"]], [2, 1])
    raw = json.dumps({"handout": "2022", "answers": {"q1": "10", "q2": "20"}}).encode()
    with pytest.raises(InvalidDocument, match="upload declares handout '2021'"):
        read_submission(raw, "s.json", None, loaded.rubric, "2021")
    assert read_submission(raw, "s.json", None, loaded.rubric, "2022").handout == "2022"
    # a stored declaration the rubric no longer lists (the rubric changed since the upload)
    parsed = read_submission(_markdown(["q1", "q2"]), "s.md", None, loaded.rubric, "2019")
    assert parsed.handout is None
    assert any("'2019' was declared" in note for note in parsed.notes)
    # case aside, a declared edition is the rubric's own spelling
    editions = _rubric([[], ["Fall"]], [2, 1], editions=["Fall", "Spring"])
    assert read_submission(_markdown(["q1"]), "s.md", None, editions.rubric,
                           "fall").handout == "Fall"


@given(st.text(max_size=300))
def test_a_declared_value_is_cleaned_or_refused(value: str) -> None:
    try:
        cleaned = clean_edition(value, "handout")
    except ValueError as exc:
        assert str(exc).startswith("handout ")
        return
    assert 0 < len(cleaned) <= MAX_CHARS and cleaned.isprintable()
    assert cleaned == cleaned.strip() and "  " not in cleaned
    assert clean_edition(cleaned, "handout") == cleaned


def test_json_handout_values() -> None:
    assert document_edition("json", {"handout": 2025, "answers": {}}) == "2025"
    for bad in (True, ["2025"], {"y": 1}, "", "x" * (MAX_CHARS + 1), "20\x0025"):
        with pytest.raises(InvalidDocument):
            document_edition("json", {"handout": bad})


def test_the_upload_checks_name_the_editions() -> None:
    with pytest.raises(EditionError, match="its editions: 2021, 2022") as refused:
        check_declared(("2021", "2022"), "2030", None)
    assert refused.value.allowed == ("2021", "2022")
    with pytest.raises(EditionError, match="no handout editions"):
        check_declared((), "2021", None)
    with pytest.raises(EditionError, match="document declares '2022'"):
        check_declared(("2021", "2022"), "2021", "2022")
    with pytest.raises(EditionError, match="document declares handout '2030'"):
        check_declared(("2021", "2022"), None, "2030")
    # a template's own declaration is no error where the rubric has one handout
    assert check_declared((), None, "2021") is None
    assert check_declared(("2021", "2022"), "2022", "2022") == "2022"
    assert check_declared(("2021", "2022"), None, None) is None


def test_the_total_of_a_declared_edition_is_exact() -> None:
    loaded = _rubric([[], ["2021"], ["2022"]], [2, 3, 4])
    outcome = _grade(loaded, _markdown(["q1", "q2", "q3"]), "s.md", "2022")
    assert outcome.total == outcome.max_points == Decimal(6)
