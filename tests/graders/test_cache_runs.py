"""The keys a regrade's fast path computes from a stored run are the keys grading computes.

A document is graded under a rubric (its keys recorded, as a stored run keeps them); the rubric
is edited; `RunKeys` recomputes every key from the recorded digests alone, and grading the same
document under the edited rubric must record exactly those keys.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator, Sequence
from decimal import Decimal
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.cache import CACHE_KEY, MemoryStore, ResultCache
from graders.cache.keys import digest, location_key
from graders.cache.runs import MISSING, RunKeys, run_keys
from graders.context import GradingResources
from graders.documents import read_submission
from graders.engine import grade_submission
from graders.results import ItemResult
from graders.rubric import BUNDLED_RUBRICS, LoadedRubric, Rubric

SOURCE = (BUNDLED_RUBRICS / "transformer-basics.yaml").read_text()
BASE = yaml.safe_load(SOURCE)
OPTIONS = {"code_input_secret": "test-secret", "result_cache_path": "unused"}

DOCUMENTS = [
    {"B1": "d_head = 64. Each: 589824. Together: 1769472.", "B2": "Sum = 11.107"},
    {"B1": "d_head = 64. Each: 49152. Together: 2359296.", "A1": "XOR is not linearly "
     "separable, so one perceptron's single hyperplane cannot split it."},
    {"B1": "Each: 590592 (with the bias). Together: 1771776.",
     "B2": "softmax = [0.665, 0.245, 0.090]"},
]

texts = st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=0x2FF), min_size=1,
                max_size=30)
halves = st.integers(1, 20).map(lambda n: Decimal(n) / 2)


def _loaded(data: dict[str, Any]) -> LoadedRubric:
    return LoadedRubric(rubric=Rubric.model_validate(data), content_hash=digest(data),
                        source="<test>")


@pytest.fixture(scope="module")
def resources() -> Iterator[GradingResources]:
    found = GradingResources(options=dict(OPTIONS))
    found.shared(CACHE_KEY, lambda: ResultCache(MemoryStore()))
    yield found
    found.close()


def _graded(loaded: LoadedRubric, raw: bytes,
            resources: GradingResources) -> tuple[dict[str, Any], tuple[ItemResult, ...]]:
    """What a grading process records for the document (worker._grade does the same)."""
    cache: ResultCache = resources.shared(CACHE_KEY, lambda: ResultCache(MemoryStore()))
    cache.take_keys()
    parsed = read_submission(raw, "s.json", "application/json", loaded.rubric)
    outcome = grade_submission(loaded, parsed, resources)
    located = len(parsed.answers)
    keys = run_keys(loaded, parsed, location_key(loaded, raw, "s.json", "application/json"),
                    located, cache.take_keys())
    return keys, outcome.items


def _recomputed(loaded: LoadedRubric, stored: dict[str, Any], raw: bytes,
                results: Sequence[ItemResult], resources: GradingResources) -> dict[str, Any]:
    """The fast path's keys for the stored run under `loaded`, without the document."""
    import hashlib

    computed = RunKeys(loaded, resources.options, resources)
    by_id = {r.item_id: r for r in results}
    groups: dict[str, list[str]] = {}
    for question, specs in computed.questions:
        missing = stored["groups"].get(f"{question.id}/{MISSING}")
        if missing is not None:
            groups[f"{question.id}/{MISSING}"] = [computed.missing(question, missing[1]),
                                                  missing[1]]
            continue
        for spec in specs:
            entry = stored["groups"].get(spec.name)
            if entry is None:
                continue  # not cacheable: the fast path sends such a run to the processes
            key = computed.key(spec, entry[1], lambda ids: {i: by_id[i] for i in ids})
            assert key is not None
            groups[spec.name] = [key, entry[1]]
    location = computed.location_key(hashlib.sha256(raw).hexdigest(), "s.json",
                                     "application/json")
    return {"location": location, "answers": stored["answers"], "groups": groups}


def numeric_edited(item_points: Sequence[Decimal], mistake_points: Decimal,
                   feedback: str) -> dict[str, Any]:
    """The base rubric with its numeric items' points, and their known mistakes' points and
    feedback, edited."""
    data = copy.deepcopy(BASE)
    numeric = [i for q in data["questions"] for i in q["items"] if i["grader"] == "numeric"]
    for item, value in zip(numeric, item_points, strict=False):
        item["points"] = str(value)
        for mistake in item["config"].get("known_mistakes", []):
            mistake["points"] = str(min(value, mistake_points))
            mistake["feedback"] = feedback
    return data


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    document=st.integers(0, len(DOCUMENTS) - 1),
    item_points=st.lists(halves, min_size=3, max_size=3),
    mistake_points=halves,
    feedback=texts,
    reference=texts,
    threshold=st.sampled_from([0.5, 0.7, 0.87]),
)
def test_fast_path_keys_equal_the_keys_grading_records(
    resources: GradingResources, document: int, item_points: list[Decimal],
    mistake_points: Decimal, feedback: str, reference: str, threshold: float,
) -> None:
    raw = json.dumps({"student_id": "s", "answers": DOCUMENTS[document]}).encode()
    base = _loaded(BASE)
    stored, _ = _graded(base, raw, resources)
    data = numeric_edited(item_points, mistake_points, feedback)
    data["review_threshold"] = threshold
    written = next(i for q in data["questions"] for i in q["items"] if i["grader"] == "written")
    written["config"]["reference"] = [reference]
    edited = _loaded(data)
    expected, results = _graded(edited, raw, resources)
    assert _recomputed(edited, stored, raw, results, resources) == expected
    # Unedited, every key is the stored one.
    assert _recomputed(base, stored, raw, results, resources) == stored


def _written_context(options: dict[str, Any]) -> tuple[Any, Any, GradingResources]:
    from graders.context import GradingContext
    from graders.documents.model import ParsedSubmission

    loaded = _loaded(BASE)
    question = next(q for q in loaded.rubric.questions
                    if any(i.grader == "written" for i in q.items))
    items = [i for i in question.items if i.grader == "written"]
    resources = GradingResources(options=options)
    context = GradingContext(rubric=loaded.rubric, question=question,
                             submission=ParsedSubmission(text="", format="text", answers={}),
                             resources=resources)
    return context, items, resources


def test_the_written_key_names_the_model_without_loading_it() -> None:
    """A regrade's keys (load=False) name the embedding model as grading does after loading
    it, so a regrade need not load it; switched off, both say "none"."""
    from graders.cache.groups import environment
    from graders.embedding.model import EmbedderUnavailable, model_directory
    from graders.written.grader import EMBEDDER_KEY

    try:
        model_directory()
    except EmbedderUnavailable:
        pytest.skip("the embedding model package is not installed")
    context, items, resources = _written_context({})
    named = environment("written", items, context, load=False)
    assert EMBEDDER_KEY not in resources._shared  # nothing loaded
    assert named != "none" and "all-MiniLM-L6-v2" in named
    assert environment("written", items, context) == named
    assert resources._shared.get(EMBEDDER_KEY) is not None  # grading loads it
    other, _, _ = _written_context({"embedding_max_tokens": 64})
    assert environment("written", items, other, load=False) not in (named, "none")
    off, _, _ = _written_context({"written_similarity": "off"})
    assert environment("written", items, off, load=False) == "none"
    assert environment("written", items, off) == "none"


def test_the_written_key_says_none_when_the_model_does_not_load(monkeypatch) -> None:
    """Installed but failing to load: grading names no model (a regrade that names it only
    sends those submissions to the grading processes: never a wrong reuse)."""
    import graders.written.grader as written
    from graders.cache.groups import environment

    monkeypatch.setattr(written, "load_embedder", _unavailable)
    context, items, _ = _written_context({})
    assert environment("written", items, context) == "none"


def _unavailable(*args: object, **kwargs: object) -> None:
    from graders.embedding.model import EmbedderUnavailable

    raise EmbedderUnavailable("broken for the test")
