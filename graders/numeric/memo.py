"""What the numeric grader keeps between calls in one process: observations and verdicts.

Grading a numeric group is two steps of very different cost. Observing (extracting the values
of the answer and choosing which answers which item) reads the answer's text and parts and the
parts of each item's config that say what to look for; never the points, the item titles or
any feedback wording. Scoring (the verdict of each chosen value, its points and words, review
decisions, evidence) is cheap and reads the rest. An observation is kept by what it reads, so a
points or feedback edit, or a known mistake's points, re-scores without extracting again.

A scored group is kept too, by everything it reads except where the answer sits in the
document: the results depend on the answer's offsets only through evidence spans (the answer's
own span, and each value's span shifted by the answer's start), so the same answer at another
place is the kept results moved there (`placed`). A class's answers repeat (the same words at
other offsets), which is what makes a regrade after a rubric edit cheap. Both memos are bounded.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Hashable, Sequence
from typing import Any, Generic, TypeVar

from graders.context import Resource
from graders.documents.model import LocatedAnswer
from graders.numeric.config import NumericConfig
from graders.results import Evidence, ItemResult
from graders.rubric_model import RubricItem

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")

MEMO: Resource[NumericMemo] = Resource("numeric.memo")  # the process's memos
OBSERVATIONS = 2048
SCORED = 16384

# What choosing values never reads of a config: the words and points of a known mistake, the
# carry-forward rule, a vector's sum penalty, the typical range of a measurement, a rounding
# policy's credit (tests/graders/numeric/test_memo.py checks that changing them leaves the
# choices alone).
_NOT_OBSERVED: Any = {
    "known_mistakes": {"__all__": {"points", "feedback", "hint", "full_credit_if_mentions"}},
    "carry_forward": True,
    "sum_to_one_penalty": True,
    "sum_tolerance": True,
    "typical": True,
    "rounding": {"credit"},
}


class Bounded(Generic[K, V]):
    """A least-recently-used mapping of at most `limit` entries."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._entries: OrderedDict[K, V] = OrderedDict()

    def __len__(self) -> int:
        return len(self._entries)

    def get(self, key: K) -> V | None:
        found = self._entries.get(key)
        if found is not None:
            self._entries.move_to_end(key)
        return found

    def put(self, key: K, value: V) -> None:
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self.limit:
            self._entries.popitem(last=False)


Stated = tuple[str, str, str, str]  # an item as the scoring key names it (`stated`)
ITEMS = 1024  # items kept by object (a rubric has a few dozen; calibration copies a few more)


def stated(item: RubricItem) -> Stated:
    """What a scored group's key reads of an item: its id, title, points and config."""
    return (item.id, item.title, str(item.points), repr(item.config))


class NumericMemo:
    """One process's memos (`GradingResources.shared(MEMO, NumericMemo)`)."""

    def __init__(self, observations: int = OBSERVATIONS, scored: int = SCORED) -> None:
        self.observations: Bounded[Hashable, Any] = Bounded(observations)
        self.scored: Bounded[Hashable, tuple[int | None, list[ItemResult]]] = Bounded(scored)
        self.configs: Bounded[str, tuple[NumericConfig, str]] = Bounded(1024)
        # By the item object (a frozen model, whose config no code changes in place; kept, so
        # that its id is not reused while here): its validated config and its stated part,
        # made once per item rather than once per group graded (a regrade grades thousands).
        self._items: dict[int, tuple[RubricItem, tuple[NumericConfig, str], Stated]] = {}

    def _item(self, item: RubricItem) -> tuple[RubricItem, tuple[NumericConfig, str], Stated]:
        found = self._items.get(id(item))
        if found is None or found[0] is not item:
            told = stated(item)
            config = self.configs.get(told[3])
            if config is None:
                typed = NumericConfig.model_validate(item.config)
                config = (typed, repr(typed.model_dump(exclude=_NOT_OBSERVED)))
                self.configs.put(told[3], config)
            if len(self._items) >= ITEMS:
                self._items.clear()
            found = self._items[id(item)] = (item, config, told)
        return found

    def config(self, item: RubricItem) -> tuple[NumericConfig, str]:
        """The item's config, validated, and the part of it observing reads (as text)."""
        return self._item(item)[1]

    def item(self, item: RubricItem) -> tuple[tuple[NumericConfig, str], Stated]:
        """`config(item)` and `stated(item)`, kept with the item."""
        found = self._item(item)
        return found[1], found[2]


def _answer_part(answer: LocatedAnswer) -> tuple[object, ...]:
    return (answer.text, tuple(sorted(answer.parts.items())))


def observation_key(answer: LocatedAnswer, observed: Sequence[tuple[str, str]]) -> Hashable:
    """(item id, observed part of its config) per item, and the answer's text and parts."""
    return (_answer_part(answer), tuple(observed))


def scoring_key(answer: LocatedAnswer, items: Sequence[RubricItem], question: str,
                threshold: float, carried: Sequence[object],
                told: Sequence[Stated] | None = None) -> Hashable:
    """Everything a scored group reads but the answer's offsets (whether it has them counts).
    Numbers enter with their type: 1, 1.0 and Fraction(1) are equal keys but not equal
    inputs. `told`: `stated(item)` of each item, when the caller has them."""
    return (
        _answer_part(answer), answer.start is None, answer.confidence, answer.method,
        answer.label, answer.note, answer.question_id, question, repr(threshold),
        tuple(told) if told is not None else tuple(stated(i) for i in items),
        tuple((type(v).__name__, repr(v)) for v in carried),
    )


def placed(results: list[ItemResult], start: int | None,
           answer: LocatedAnswer) -> list[ItemResult]:
    """`results` scored on the same answer at `start`, moved to where `answer` is."""
    if start == answer.start:
        return results
    shift = 0 if start is None or answer.start is None else answer.start - start
    return [_copied(r, {"evidence": tuple(_moved(e, shift, answer) for e in r.evidence)})
            for r in results]


def _moved(evidence: Evidence, shift: int, answer: LocatedAnswer) -> Evidence:
    if evidence.kind == "answer":
        return _copied(evidence, {"start": answer.start, "end": answer.end})
    if evidence.start is None:
        return evidence
    end = None if evidence.end is None else evidence.end + shift
    return _copied(evidence, {"start": evidence.start + shift, "end": end})


M = TypeVar("M", ItemResult, Evidence)


def _copied(model: M, update: dict[str, Any]) -> M:
    """`model.model_copy(update=update)` for a model without extra or private attributes (these
    two are), without its generic copying: regrades move many kept results."""
    if model.__pydantic_extra__ is not None or model.__pydantic_private__ is not None:
        return model.model_copy(update=update)
    cls = type(model)
    copied = cls.__new__(cls)
    object.__setattr__(copied, "__dict__", {**model.__dict__, **update})
    object.__setattr__(copied, "__pydantic_extra__", None)
    object.__setattr__(copied, "__pydantic_fields_set__",
                       model.__pydantic_fields_set__ | update.keys())
    object.__setattr__(copied, "__pydantic_private__", None)
    return copied
