"""Agreement between the machine's item results and a careful grader's item-by-item grades.

A grades file (`<stem>.grades.yaml` beside a hand-graded submission) names the assignment, the
grader's total with the range a second fair grader could give, and per item the points with
their range. An item agrees when the machine's points (its suggestion, for an item sent to
review) fall inside the range; a file agrees when at least 90% of the items its grades list
(answered or not) and its total do.

Only answered items are counted: an item the grades mark `answered: false`, or give [0, 0] with
a note saying there was nothing to grade (UNANSWERED_NOTES), would agree with any grader that
gives nothing for nothing, and an item the rubric scores out of 0 cannot disagree. Rubric items
the grades do not list were never asked of the file. Neither kind is counted; either kind given
points by the machine is reported apart.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import Any

from graders.results import FINAL_STATUSES, ItemResult, Status

FILE_AGREEMENT = Decimal("0.9")
# An auto-graded item (not sent to review) at least this confident is the headline risk.
CONFIDENT = 0.8
# A [0, 0] item whose note contains one of these (any case) was not answered (or not asked).
UNANSWERED_NOTES = (
    "not answered", "no answer", "unanswered", "not attempted", "not asked", "not in the",
    "not reported", "nothing in this document", "left blank",
)


class GradesError(ValueError):
    """A grades file that cannot be read as item-by-item grades."""


@dataclass(frozen=True)
class ExpectedItem:
    item_id: str
    points: Decimal
    low: Decimal
    high: Decimal
    note: str = ""
    answered: bool = True


@dataclass(frozen=True)
class ExpectedGrades:
    assignment: str | None
    total: Decimal
    total_low: Decimal
    total_high: Decimal
    items: tuple[ExpectedItem, ...]
    must_name: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass(frozen=True)
class ItemAgreement:
    expected: ExpectedItem
    result: ItemResult | None  # None: the rubric has no such item

    @property
    def points(self) -> Decimal | None:
        return None if self.result is None else self.result.points

    @property
    def within(self) -> bool:
        points = self.points
        return points is not None and self.expected.low <= points <= self.expected.high

    @property
    def counted(self) -> bool:
        """Evidence of agreement: answered, and not scored out of 0 on both sides."""
        result = self.result
        worthless = result is not None and result.max_points == 0 and self.expected.high == 0
        return self.expected.answered and not worthless

    @property
    def auto_graded(self) -> bool:
        """Decided by the machine alone: its status is final, no human is asked."""
        return self.result is not None and self.result.status in FINAL_STATUSES

    @property
    def confidently_wrong(self) -> bool:
        result = self.result
        return (
            self.auto_graded and result is not None and result.confidence >= CONFIDENT
            and not self.within
        )


@dataclass(frozen=True)
class FileAgreement:
    name: str
    expected: ExpectedGrades
    items: tuple[ItemAgreement, ...]
    total: Decimal
    statuses: Mapping[str, int]
    # Question id -> (pattern, whether the question's feedback names it)
    named: Mapping[str, tuple[tuple[str, bool], ...]] = field(default_factory=dict)
    # The machine's results for rubric items the grades do not list (never asked of the file).
    unasked: tuple[ItemResult, ...] = ()

    @property
    def unnamed(self) -> tuple[tuple[str, str], ...]:
        return tuple((q, p) for q, checks in self.named.items() for p, ok in checks if not ok)

    @property
    def counted(self) -> tuple[ItemAgreement, ...]:
        return tuple(item for item in self.items if item.counted)

    @property
    def items_within(self) -> int:
        """Counted items inside their range."""
        return sum(1 for item in self.counted if item.within)

    @property
    def unanswered_given_points(self) -> tuple[ItemAgreement, ...]:
        return tuple(
            item for item in self.items
            if not item.counted and item.points is not None and item.points > 0
        )

    @property
    def unasked_given_points(self) -> tuple[ItemResult, ...]:
        return tuple(r for r in self.unasked if r.counts_toward_total and r.points > 0)

    @property
    def total_within(self) -> bool:
        return self.expected.total_low <= self.total <= self.expected.total_high

    @property
    def agrees(self) -> bool:
        """The corpus's own rule (shared/real/README.md): 90% of the items the grades list, and
        the total. Over listed items, not counted ones: an unanswered item the machine left at 0
        is an agreement a second grader would make too, and a file of few answered items would
        otherwise fail on its first miss."""
        if not self.items:
            return self.total_within and not self.unnamed
        share = Decimal(sum(1 for item in self.items if item.within)) / Decimal(len(self.items))
        return share >= FILE_AGREEMENT and self.total_within and not self.unnamed

    @property
    def disagreements(self) -> tuple[ItemAgreement, ...]:
        return tuple(item for item in self.counted if not item.within)


def _decimal(value: Any, where: str) -> Decimal:
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise GradesError(f"{where}: expected a number, got {value!r}")
    try:
        number = Decimal(str(value))
    except InvalidOperation:
        raise GradesError(f"{where}: {value!r} is not a number") from None
    if not number.is_finite():
        raise GradesError(f"{where}: {value!r} is not a finite number")
    return number


def _range(value: Any, where: str, default: Decimal) -> tuple[Decimal, Decimal]:
    if value is None:
        return default, default
    if not isinstance(value, list | tuple) or len(value) != 2:
        raise GradesError(f"{where}: a range is [low, high]")
    low, high = _decimal(value[0], where), _decimal(value[1], where)
    if low > high:
        raise GradesError(f"{where}: the range's low end {low} is above its high end {high}")
    return low, high


def parse_grades(data: Any) -> ExpectedGrades:
    """Read the parsed YAML of a grades file; GradesError names what is wrong."""
    if not isinstance(data, Mapping):
        raise GradesError("a grades file is a mapping with `total` and `items`")
    raw_items = data.get("items")
    if not isinstance(raw_items, Mapping):
        raise GradesError("`items` must map item ids to {points, range}")
    items: list[ExpectedItem] = []
    for item_id, spec in raw_items.items():
        where = f"items.{item_id}"
        if isinstance(spec, Mapping):
            points = _decimal(spec.get("points"), f"{where}.points")
            low, high = _range(spec.get("range"), f"{where}.range", points)
            note = str(spec.get("note", ""))
            answered = _answered(spec.get("answered"), low, high, note, where)
        else:
            points = _decimal(spec, where)
            low, high = points, points
            note = ""
            answered = True
        items.append(ExpectedItem(str(item_id), points, low, high, note, answered))
    total, total_low, total_high = _total(data, items)
    must_name: dict[str, tuple[str, ...]] = {}
    raw_names = data.get("must_name") or {}
    if not isinstance(raw_names, Mapping):
        raise GradesError("`must_name` maps a question id to a list of patterns")
    for question, patterns in raw_names.items():
        if not isinstance(patterns, list) or not all(isinstance(p, str) for p in patterns):
            raise GradesError(f"must_name.{question}: a list of patterns")
        must_name[str(question)] = tuple(patterns)
    assignment = data.get("assignment")
    return ExpectedGrades(
        assignment=assignment if isinstance(assignment, str) else None,
        total=total,
        total_low=total_low,
        total_high=total_high,
        items=tuple(items),
        must_name=must_name,
    )


def _total(data: Mapping[str, Any], items: Sequence[ExpectedItem]
           ) -> tuple[Decimal, Decimal, Decimal]:
    """The grader's total and its range. A file that gives no `total` (an instructor who graded
    item by item) totals its items: the points, and the range from the items' low and high ends;
    a `total_range` without a `total` is refused (which total is it the range of?)."""
    if data.get("total") is None:
        if data.get("total_range") is not None:
            raise GradesError("total_range: give the `total` it is the range of")
        return (sum((i.points for i in items), Decimal(0)),
                sum((i.low for i in items), Decimal(0)), sum((i.high for i in items), Decimal(0)))
    total = _decimal(data.get("total"), "total")
    return (total, *_range(data.get("total_range"), "total_range", total))


def _answered(explicit: Any, low: Decimal, high: Decimal, note: str, where: str) -> bool:
    """`answered: true|false` when the grades say; else answered unless the range is [0, 0]
    and the note says there was nothing to grade."""
    if explicit is not None:
        if not isinstance(explicit, bool):
            raise GradesError(f"{where}.answered: true or false, not {explicit!r}")
        return explicit
    folded = note.casefold()
    return not (low == high == 0 and any(phrase in folded for phrase in UNANSWERED_NOTES))


def compare(name: str, expected: ExpectedGrades, results: Sequence[ItemResult]) -> FileAgreement:
    by_id = {result.item_id: result for result in results}
    items = tuple(ItemAgreement(item, by_id.get(item.item_id)) for item in expected.items)
    listed = {item.item_id for item in expected.items}
    unasked = tuple(r for r in results if r.item_id not in listed)
    total = sum((r.points for r in results if r.counts_toward_total), Decimal(0))
    statuses: dict[str, int] = {}
    for result in results:
        statuses[result.status.value] = statuses.get(result.status.value, 0) + 1
    named = {
        question: tuple((pattern, _names(pattern, question, results)) for pattern in patterns)
        for question, patterns in expected.must_name.items()
    }
    return FileAgreement(name, expected, items, total, statuses, named, unasked)


def _names(pattern: str, question: str, results: Sequence[ItemResult]) -> bool:
    """Whether any feedback on the question (staff's or the student's) matches the pattern."""
    wanted = question.casefold()
    texts = [
        f"{r.feedback}\n{r.student_feedback or ''}"
        for r in results
        if r.question.casefold() == wanted
    ]
    try:
        compiled = re.compile(pattern, re.IGNORECASE)
    except re.error:
        return False
    return any(compiled.search(text) for text in texts)


@dataclass(frozen=True)
class Summary:
    files: int
    files_agreeing: int
    items: int  # counted (answered) items
    items_within: int
    totals_within: int
    bugs: int
    bugs_named: int
    confident_missing: int  # `missing` at confidence >= 0.9 on an item the grader gave points
    items_listed: int = 0  # every item the grades list, answered or not
    items_listed_within: int = 0
    unanswered_given_points: int = 0
    unasked_given_points: int = 0
    auto_graded: int = 0  # counted items the machine decided alone (a final status)
    auto_graded_wrong: int = 0  # ... outside their range
    confident_wrong: int = 0  # ... at confidence >= CONFIDENT

    @property
    def item_share(self) -> float:
        return self.items_within / self.items if self.items else 1.0

    @property
    def auto_graded_error(self) -> float:
        return self.auto_graded_wrong / self.auto_graded if self.auto_graded else 0.0


def summarise(files: Sequence[FileAgreement]) -> Summary:
    counted = [item for agreement in files for item in agreement.counted]
    listed = [item for agreement in files for item in agreement.items]
    auto = [item for item in counted if item.auto_graded]
    confident_missing = sum(
        1
        for item in counted
        if item.result is not None
        and item.result.status is Status.MISSING
        and item.result.confidence >= 0.9
        and item.expected.high > 0
    )
    return Summary(
        files=len(files),
        files_agreeing=sum(1 for f in files if f.agrees),
        items=len(counted),
        items_within=sum(1 for item in counted if item.within),
        totals_within=sum(1 for f in files if f.total_within),
        bugs=sum(len(checks) for f in files for checks in f.named.values()),
        bugs_named=sum(ok for f in files for checks in f.named.values() for _, ok in checks),
        confident_missing=confident_missing,
        items_listed=len(listed),
        items_listed_within=sum(1 for item in listed if item.within),
        unanswered_given_points=sum(len(f.unanswered_given_points) for f in files),
        unasked_given_points=sum(len(f.unasked_given_points) for f in files),
        auto_graded=len(auto),
        auto_graded_wrong=sum(1 for item in auto if not item.within),
        confident_wrong=sum(1 for item in auto if item.confidently_wrong),
    )
