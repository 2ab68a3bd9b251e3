"""Cache keys change with every input that determines a result, and with nothing else."""

from __future__ import annotations

import copy
import shutil
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.cache import keys
from graders.documents.model import ParsedSubmission
from graders.rubric import BUNDLED_RUBRICS, LoadedRubric, Rubric, parse_rubric
from graders.sandbox import SandboxPolicy
from graders.sandbox.pool import Call

SOURCE = (BUNDLED_RUBRICS / "transformer-basics.yaml").read_text()
BASE = yaml.safe_load(SOURCE)
parse_rubric(SOURCE)  # the copies below are of a rubric that validates
DOC = b'{"answers": {"B1": "d_head = 64"}}'

texts = st.text(min_size=1, max_size=40)
points = st.decimals(min_value=0, max_value=100, places=2, allow_nan=False)


def _loaded(data: dict[str, Any]) -> LoadedRubric:
    """The rubric as `parse_rubric` validates it, without the YAML round trip (hypothesis
    builds many); its hash is that of its content, like a stored rubric's."""
    return LoadedRubric(rubric=Rubric.model_validate(data), content_hash=keys.digest(data),
                        source="<test>")


def _copy() -> dict[str, Any]:
    return copy.deepcopy(BASE)


def _numeric_items(data: dict[str, Any]) -> list[dict[str, Any]]:
    return [i for q in data["questions"] for i in q["items"] if i["grader"] == "numeric"]


@settings(max_examples=15, deadline=None)
@given(index=st.integers(0, 10), value=points, feedback=texts, title=texts)
def test_points_feedback_and_titles_leave_the_location_key_alone(
    index: int, value: Decimal, feedback: str, title: str
) -> None:
    data = _copy()
    items = _numeric_items(data)
    item = items[index % len(items)]
    item["points"] = str(value)
    item["title"] = title
    for mistake in item["config"].get("known_mistakes", []):
        mistake["feedback"] = feedback
        mistake["points"] = str(min(value, Decimal(mistake["points"])))
    changed = _loaded(data)
    before = keys.location_key(_loaded(BASE), DOC, "a.json", "application/json")
    assert keys.location_key(changed, DOC, "a.json", "application/json") == before


FIELDS = ["prompt", "part", "labels", "cues", "id", "answer_kind"]


@settings(max_examples=15, deadline=None)
@given(index=st.integers(0, 20), field=st.sampled_from(FIELDS), word=texts)
def test_question_structure_changes_the_location_key(index: int, field: str, word: str) -> None:
    data = _copy()
    question = data["questions"][index % len(data["questions"])]
    old = question.get(field)
    if field in ("labels", "cues"):
        question[field] = [*(old or []), "zz" + word]
    elif field == "answer_kind":
        question[field] = "prose" if old != "prose" else "numeric"
    else:
        question[field] = f"{old or ''}zz{word}"
    try:
        changed = _loaded(data)
    except Exception:  # an id the rubric rejects: nothing to compare
        return
    base = _loaded(BASE)
    assert keys.location_key(changed, DOC, None, None) != keys.location_key(base, DOC, None, None)


@settings(max_examples=15, deadline=None)
@given(extra=st.binary(min_size=1, max_size=20), name=texts, ctype=texts)
def test_document_bytes_name_and_type_change_the_location_key(
    extra: bytes, name: str, ctype: str
) -> None:
    base = _loaded(BASE)
    key = keys.location_key(base, DOC, "a.json", "application/json")
    assert keys.location_key(base, DOC + extra, "a.json", "application/json") != key
    if name != "a.json":
        assert keys.location_key(base, DOC, name, "application/json") != key
    if ctype != "application/json":
        assert keys.location_key(base, DOC, "a.json", ctype) != key


def test_item_cues_change_the_location_key() -> None:
    data = _copy()
    _numeric_items(data)[0]["config"]["cues"].append("brand new cue")
    base = _loaded(BASE)
    assert keys.location_key(_loaded(data), DOC, None, None) != keys.location_key(
        base, DOC, None, None)


def test_a_version_bump_changes_every_key(monkeypatch: pytest.MonkeyPatch) -> None:
    base = _loaded(BASE)
    question = base.rubric.questions[0]
    before = (keys.location_key(base, DOC, None, None),
              keys.group_static(base, question, "numeric", "1", question.items),
              keys.sandbox_key("x = 1", (), (), None, SandboxPolicy()))
    monkeypatch.setattr(keys, "LOCATION_VERSION", "bumped")
    monkeypatch.setattr(keys, "GROUP_VERSION", "bumped")
    monkeypatch.setattr(keys, "SANDBOX_VERSION", "bumped")
    after = (keys.location_key(base, DOC, None, None),
             keys.group_static(base, question, "numeric", "1", question.items),
             keys.sandbox_key("x = 1", (), (), None, SandboxPolicy()))
    assert all(a != b for a, b in zip(before, after, strict=True))
    # ... and so does the grader's own version
    assert keys.group_static(base, question, "numeric", "2", question.items) != before[1]


@settings(max_examples=15, deadline=None)
@given(index=st.integers(0, 10), value=points)
def test_points_change_the_group_key_of_their_item_only(index: int, value: Decimal) -> None:
    data = _copy()
    items = _numeric_items(data)
    item = items[index % len(items)]
    if Decimal(str(item["points"])) == value:
        return
    item["points"] = str(value)
    for mistake in item["config"].get("known_mistakes", []):
        mistake["points"] = str(min(value, Decimal(mistake["points"])))
    base, changed = _loaded(BASE), _loaded(data)
    for old_q, new_q in zip(base.rubric.questions, changed.rubric.questions, strict=True):
        old = keys.group_static(base, old_q, "numeric", "1", old_q.items)
        new = keys.group_static(changed, new_q, "numeric", "1", new_q.items)
        assert (old != new) == any(i.id == item["id"] for i in new_q.items)


arrays = st.lists(st.integers(-5, 5), min_size=1, max_size=6).map(
    lambda v: np.array(v, dtype=np.float64))


@settings(max_examples=50, deadline=None)
@given(source=texts, array=arrays, function=texts, timeout=st.floats(0.1, 5))
def test_every_job_input_changes_the_sandbox_key(
    source: str, array: np.ndarray[Any, Any], function: str, timeout: float
) -> None:
    policy = SandboxPolicy()
    calls = (Call(function, (0,)),)
    key = keys.sandbox_key(source, (array,), calls, None, policy)
    assert keys.sandbox_key(source, (array.copy(),), calls, None, policy) == key
    assert keys.sandbox_key(source + " ", (array,), calls, None, policy) != key
    bumped = array.copy()
    bumped[0] += 1
    assert keys.sandbox_key(source, (bumped,), calls, None, policy) != key
    assert keys.sandbox_key(source, (array.astype(np.float32),), calls, None, policy) != key
    assert keys.sandbox_key(source, (array.reshape(1, -1),), calls, None, policy) != key
    assert keys.sandbox_key(source, (array,), (Call(function + "x", (0,)),), None, policy) != key
    assert keys.sandbox_key(source, (array,), calls, timeout, policy) != key
    assert keys.sandbox_key(source, (array,), calls, None, SandboxPolicy(memory_mb=128)) != key


def test_referenced_items_are_what_a_carry_forward_names() -> None:
    base = _loaded(BASE)
    question = next(q for q in base.rubric.questions if q.id == "B1")
    total = [i for i in question.items if i.id == "b1.total"]
    assert keys.referenced_items(base.rubric, total) == ("b1.per_matrix",)
    assert keys.referenced_items(base.rubric, question.items) == ()


@settings(max_examples=10, deadline=None)
@given(threshold=st.floats(0.5, 0.99), exemplar=texts)
def test_learned_configs_under_the_same_rubric_hash_change_the_group_key(
    threshold: float, exemplar: str
) -> None:
    """Exemplars and thresholds learned from instructor grades are added to written items'
    configs while the rubric's content hash stays: the memoised static part must follow the
    items as given, or a regrade would reuse results graded under the old threshold."""
    from graders.cache.groups import _static_part

    base = _loaded(BASE)
    question = next(q for q in base.rubric.questions
                    if any(i.grader == "written" for i in q.items))
    learned_items = tuple(
        i.model_copy(update={"config": {**i.config, "review_threshold": threshold,
                                        "exemplars": [{"text": exemplar, "points": 0}]}})
        if i.grader == "written" else i
        for i in question.items)
    learned_q = question.model_copy(update={"items": learned_items})
    learned = LoadedRubric(
        rubric=base.rubric.model_copy(update={"questions": [
            learned_q if q.id == question.id else q for q in base.rubric.questions]}),
        content_hash=base.content_hash, source="<test>")
    plain = _static_part(base, question, "written", "1", question.items)
    taught = _static_part(learned, learned_q, "written", "1", learned_items)
    assert plain[0] != taught[0]


def test_where_the_caches_live_is_not_part_of_a_key() -> None:
    """Moving the database and its cache folders elsewhere keeps every stored key valid; an
    option that can change a grade still changes the digest."""
    from graders.cache.keys import options_digest

    base = {"review_threshold": 0.8, "code_input_secret": "s"}
    here = options_digest({**base, "embedding_cache_dir": "/srv/a/embeddings",
                           "result_cache_path": "/srv/a/result-cache.sqlite"})
    there = options_digest({**base, "embedding_cache_dir": "/mnt/b/embeddings",
                            "result_cache_path": "/mnt/b/result-cache.sqlite"})
    assert here == there
    assert options_digest({**base, "review_threshold": 0.9}) != options_digest(dict(base))


def test_a_code_battery_key_covers_its_file_and_the_python_beside_it_not_other_batteries(
    tmp_path: Path,
) -> None:
    """Another battery's YAML added or edited beside B3's leaves B3's key alone (a new question's
    battery does not send every code answer back to the sandbox); B3's own file or any Python
    file beside it (the trusted module and what it may import) changes it."""
    from graders.code.environment import batteries_digest

    folder = tmp_path / "transformer-basics"
    shutil.copytree(BUNDLED_RUBRICS / "transformer-basics", folder)

    def key() -> str:
        return batteries_digest((("transformer-basics/b3.yaml", str(folder / "b3.yaml")),))

    before = key()
    assert "unreadable" not in before
    (folder / "b5.yaml").write_text((folder / "b4.yaml").read_text())
    (folder / "b4.yaml").write_text((folder / "b4.yaml").read_text() + "\n# edited\n")
    assert key() == before
    (folder / "helpers.py").write_text("SCALE = 2\n")
    after_python = key()
    assert after_python != before
    (folder / "b3.yaml").write_text((folder / "b3.yaml").read_text() + "\n# edited\n")
    assert key() not in (before, after_python)


@pytest.mark.parametrize("module", ["sub/attention.py", "../attention.py", "attention", "/x.py"])
def test_a_battery_module_is_a_file_beside_it(module: str) -> None:
    from pydantic import ValidationError

    from graders.code.spec import FunctionBatterySpec

    data = yaml.safe_load((BUNDLED_RUBRICS / "transformer-basics" / "b3.yaml").read_text())
    FunctionBatterySpec.model_validate(data)
    with pytest.raises(ValidationError):
        FunctionBatterySpec.model_validate({**data, "module": module})


def test_an_unanswered_questions_basis_names_whether_its_absence_is_sure() -> None:
    """A question made unsure (unclaimed text mentions it: its items go to review, not
    missing) has other results than a surely missing one: the basis differs; without it the
    basis is what it always was, so stored runs keep their digests."""
    reason = "No answer to Q2 was found."
    sure = ParsedSubmission(text="x", format="markdown", answers={}, missing={"Q2": reason})
    unsure = ParsedSubmission(text="x", format="markdown", answers={}, missing={"Q2": reason},
                              unsure={"Q2": "lines 3-4 mention learnable"})
    assert keys.missing_basis(sure, "Q2") == keys.digest(reason)
    assert keys.missing_basis(unsure, "Q2") != keys.missing_basis(sure, "Q2")
    assert keys.missing_basis(unsure, "Q1") == keys.missing_basis(sure, "Q1")


def _fingerprint_by_paths(root: Path) -> str:
    """The code fingerprint as first defined: every .py/.json/.yaml file under `root` but in
    `__pycache__`, in sorted Path order, its relative path then its bytes."""
    import hashlib

    hasher = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        if path.suffix in (".py", ".json", ".yaml") and "__pycache__" not in path.parts:
            hasher.update(str(path.relative_to(root)).encode() + b"\x00")
            hasher.update(path.read_bytes() + b"\x00")
    return hasher.hexdigest()


# Names as a package's files and folders have them: dots, dashes and underscores that sort
# differently as strings than as path parts (`a-b/x.py` against `a/x.py`), bytecode, caches.
_NAME_PARTS = st.sampled_from(["a", "b", "a-b", "a_b", "A", "x", "__init__", "..", "."])
_SUFFIXES = st.sampled_from(["", ".py", ".json", ".yaml", ".pyc", ".txt", ".py.bak", "."])
_FILES = st.lists(
    st.tuples(st.lists(st.sampled_from(["a", "a-b", "a_b", "b", "__pycache__", "sub"]),
                       max_size=3),
              st.tuples(_NAME_PARTS, _NAME_PARTS, _SUFFIXES).map(lambda t: "".join(t)),
              st.binary(max_size=20)),
    max_size=12)


@settings(max_examples=60, deadline=None)
@given(files=_FILES)
def test_the_code_fingerprint_is_the_hash_it_always_was(
    files: list[tuple[list[str], str, bytes]], tmp_path_factory: pytest.TempPathFactory
) -> None:
    root = tmp_path_factory.mktemp("tree")
    for folders, name, data in files:
        folder = root.joinpath(*folders)
        if name in (".", "..") or folder.joinpath(name).is_dir():
            continue
        folder.mkdir(parents=True, exist_ok=True)
        folder.joinpath(name).write_bytes(data)
    assert keys.tree_fingerprint(root) == _fingerprint_by_paths(root)


def test_the_code_fingerprint_is_the_graders_packages() -> None:
    assert keys.code_fingerprint() == _fingerprint_by_paths(keys._GRADERS)
