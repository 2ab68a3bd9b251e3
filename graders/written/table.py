"""Grading a table of short answers (`student, question, answer` rows) in batches.

An LMS quiz export has tens of thousands of short answers. Each row is graded as a one-question
submission by the engine (every grader kind the question's items name), so a row's result is
the one the service would give that answer. Everything the written grader will embed for a
batch of rows (the answers' sentences, references, exemplars, the words it aligns) is queued in
one call on the encoder's background threads: a few large forward passes per batch instead of
a small one per row, run while earlier rows are graded. Each question's answers form its
cohort (`cohort.py`, `table_cohorts.py`), evidence from the other students' answers without
any grade: `start_cohorts` queues their encoding before the first row is graded.

Student bytes are hostile: an answer is cut to `MAX_ANSWER_CHARS` (its items then go to review,
saying so), control characters are dropped, and the reader bounds a field's size.
"""

from __future__ import annotations

import hashlib
import re
from collections import OrderedDict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from decimal import Decimal

from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.embedding import SentenceEmbedder
from graders.results import ItemResult, Status
from graders.rubric_model import LoadedRubric, Question, RubricItem
from graders.written.cohort import COHORT_KEY, Cohort
from graders.written.grader import WrittenGrader, shared_embedder
from graders.written.risk import (
    Graded,
    QuestionRisk,
    calibrate_question,
    the_written_item,
    with_exemplars,
)
from graders.written.settings import DEFAULT_TARGET, WrittenSettings
from graders.written.table_cohorts import CohortPlan, reference_only
from graders.written.table_rows import (
    RowStore,
    answer_digest,
    cohort_digest,
    decode_group,
    encode_group,
    group_key,
    static_digest,
)

MAX_ANSWER_CHARS = 20_000
BATCH_ROWS = 256
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


@dataclass(frozen=True)
class TableRow:
    student: str
    question: str
    answer: str
    # Why the row could not be read (a field over the size bound, broken quoting), if so.
    unreadable: str | None = None
    # Points an instructor already gave this answer (a `points` column), if any.
    points: Decimal | None = None


# A row ready to grade (its one-question rubric and submission), or None: unreadable, already
# graded (kept), or its question is not in the rubric.
_Prepared = tuple[LoadedRubric, ParsedSubmission] | None


@dataclass(frozen=True)
class RowResult:
    row: TableRow
    total: Decimal
    items: tuple[ItemResult, ...]
    error: str | None = None


def clean_answer(text: str) -> tuple[str, bool]:
    """The answer without control characters, cut to the bound; and whether it was cut."""
    cut = len(text) > MAX_ANSWER_CHARS
    text = text[:MAX_ANSWER_CHARS]
    return _CONTROL.sub(" ", text), cut


class TableGrader:
    """Grades rows against one rubric; `questions` maps a row's question to the rubric's.

    Grading is deterministic, so the results of an answer are kept (up to `remember` answers,
    least recently used dropped): a quiz export repeats short answers ("LIFO") many times, and
    a repeated answer then costs a dictionary look-up.
    """

    def __init__(self, loaded: LoadedRubric, resources: GradingResources,
                 remember: int = 20_000, target: float = DEFAULT_TARGET) -> None:
        self.resources = resources
        self.remember = remember
        self.target = target
        self.risks: dict[str, QuestionRisk] = {}
        self._embedder: SentenceEmbedder | None = None
        self._known: OrderedDict[tuple[str, bytes], tuple[ItemResult, ...]] = OrderedDict()
        self.parts: dict[str, LoadedRubric] = {}
        # Whole rows' results kept between runs (`use_store`): loaded and newly graded groups.
        self.store: RowStore | None = None
        self._cohorts: dict[str, str] = {}
        self._groups: dict[str, str] = {}  # a row's question -> its group in the store
        self._stored: dict[str, dict[str, tuple[ItemResult, ...]]] = {}
        self._plan: CohortPlan | None = None  # the cohorts being built (`start_cohorts`)
        self._fresh: dict[str, dict[str, tuple[ItemResult, ...]]] = {}
        self.questions: dict[str, Question] = {}
        for question in loaded.rubric.questions:
            # One single-question rubric per question: a row answers one question only.
            one = loaded.rubric.model_copy(update={"questions": [question]})
            part = LoadedRubric(rubric=one, content_hash=loaded.content_hash,
                                source=loaded.source)
            for key in (question.id, *question.labels):
                self.questions.setdefault(key.strip().lower(), question)
                self.parts.setdefault(key.strip().lower(), part)

    def forget(self, embeddings: bool = True) -> None:
        """Drop the kept results, and the cached embeddings unless told not to."""
        self._known.clear()
        if embeddings and self._embedder is not None:
            self._embedder.cache.clear_memory()

    def learn(self, rows: Iterable[TableRow]) -> dict[str, QuestionRisk]:
        """Instructor-graded rows become exemplars of their question and set its threshold
        (`risk.py`); only questions with a single written item take them (a row's points are
        that item's). Call before `grade`."""
        graded: dict[str, list[Graded]] = {}
        for row in rows:
            key = row.question.strip().lower()
            if row.points is None or key not in self.parts or row.unreadable:
                continue
            if the_written_item(self.parts[key]) is None:
                continue
            qid = self.questions[key].id
            graded.setdefault(qid, []).append(Graded(clean_answer(row.answer)[0], row.points))
        for qid, answers in graded.items():
            keys = [k for k, q in self.questions.items() if q.id == qid]
            part = self.parts[keys[0]]
            risk = calibrate_question(part, answers, self._grade_one, self.target)
            updated = with_exemplars(part, answers, risk.threshold)
            for key in keys:
                self.parts[key] = updated
            self.risks[qid] = risk
        return self.risks

    def gather_cohorts(self, rows: Iterable[TableRow]) -> dict[str, int]:
        """First pass: every question's cohort (all its answers in the table; no grade and no
        reference is read), which the written grader's reference-only items then use
        (`cohort.py`). Returns each question's cohort size. Call before `grade`."""
        plan = self.start_cohorts(rows)
        return {} if plan is None else {qid: c.size for qid, c in plan.finish().items()}

    def start_cohorts(self, rows: Iterable[TableRow]) -> CohortPlan | None:
        """`gather_cohorts` without waiting: the answers' encodings are queued in the
        background (`table_cohorts.py`) and `grade` grades a question's rows once its cohort is
        whole, while later questions' answers are still being encoded."""
        wanted = {key for key, part in self.parts.items() if reference_only(part)}
        if not wanted:
            return None
        part = self.parts[min(wanted)]
        context = GradingContext(rubric=part.rubric, question=part.rubric.questions[0],
                                 submission=ParsedSubmission(text="", format="text",
                                                             answers={}),
                                 resources=self.resources)
        embedder = self._embedder = shared_embedder(context)
        if embedder is None:
            return None
        answers = ((index, self.questions[key].id, clean_answer(row.answer)[0])
                   for index, row in enumerate(rows)
                   if not row.unreadable and (key := row.question.strip().lower()) in wanted)
        shared: dict[str, Cohort] = self.resources.shared(COHORT_KEY, dict)
        plan = self._plan = CohortPlan(embedder, WrittenSettings.from_options(
            self.resources.options), shared)
        plan.start(answers)
        self._known.clear()  # results kept from before were graded without the cohort
        return plan

    def use_store(self, store: RowStore, rows: Iterable[TableRow], cohort: bool = True) -> int:
        """Keep rows' results in `store` and read those it has (`table_rows.py`); `rows` is the
        whole table, `cohort` whether `gather_cohorts` will be called. Call after `learn`.
        Returns the rows still to grade: with none, `gather_cohorts` can be skipped."""
        self.store = store
        self._groups.clear()
        wanted = ({key for key, part in self.parts.items() if reference_only(part)}
                  if cohort else set())
        answers: dict[str, list[str]] = {}
        graded: list[tuple[str, str]] = []  # question and answer digest (never the text)
        for row in rows:
            key = row.question.strip().lower()
            if not row.unreadable and key in wanted:
                answers.setdefault(self.questions[key].id, []).append(
                    answer_digest(clean_answer(row.answer)[0]))
            if self._graded(row):
                graded.append((key, answer_digest(row.answer)))
        self._cohorts = {qid: cohort_digest(digests) for qid, digests in answers.items()}
        missing = 0
        for key, digest in graded:
            group = self._group(key)
            if group not in self._stored:
                payload = store.get(group)
                self._stored[group] = ({} if payload is None
                                       else decode_group(payload, self.parts[key]))
            missing += digest not in self._stored[group]
        return missing

    def save(self) -> None:
        """Write the groups that gained results to the store (with those read from it)."""
        if self.store is None:
            return
        for group, fresh in self._fresh.items():
            self.store.put(group, encode_group({**self._stored.get(group, {}), **fresh}))
        self._fresh.clear()

    def _graded(self, row: TableRow) -> bool:
        """Whether the row is graded (readable, in the rubric, not given by the instructor)."""
        part = self.parts.get(row.question.strip().lower())
        if row.unreadable or part is None:
            return False
        return row.points is None or the_written_item(part) is None

    def _group(self, key: str) -> str:
        group = self._groups.get(key)
        if group is None:
            static = static_digest(self.parts[key], self.resources.options)
            group = group_key(static, self._cohorts.get(self.questions[key].id, "-"))
            self._groups[key] = group
        return group

    def _from_store(self, row: TableRow) -> tuple[ItemResult, ...] | None:
        if self.store is None or not self._graded(row):
            return None
        group = self._stored.get(self._group(row.question.strip().lower()), {})
        return group.get(answer_digest(row.answer))

    def _grade_one(self, part: LoadedRubric, text: str) -> ItemResult:
        from graders.engine import grade_submission  # as in `_finish`
        question = part.rubric.questions[0]
        answer = LocatedAnswer(question.id, text, start=0, end=len(text), method="label")
        submission = ParsedSubmission(text=text, format="text", answers={question.id: answer})
        return grade_submission(part, submission, self.resources).items[0]

    def grade(self, rows: Iterable[TableRow]) -> Iterator[RowResult]:
        """Results in the order of `rows`, batch by batch. Before a batch is graded (Python,
        one core), the texts of the next batch that are not cached yet are queued on the
        encoder's background threads (NumPy, whose kernels leave the other core to them);
        the results are those of grading one batch after the other."""
        waiting: tuple[list[TableRow], list[_Prepared]] | None = None
        for number, batch in enumerate(_batches(rows)):
            prepared = self._prepare(batch)
            fresh = self._uncached(prepared)
            if fresh and self._embedder is not None:
                # Queued after the cohorts' answers, so split into passes as if encoded after
                # them; run before the later questions' answers (the table row first needing
                # them comes first).
                self._embedder.submit(fresh, priority=number * BATCH_ROWS)
            if waiting is not None:
                yield from self._finish(*waiting)
            waiting = batch, prepared
        if waiting is not None:
            yield from self._finish(*waiting)

    def _submission(self, row: TableRow) -> tuple[LoadedRubric, ParsedSubmission] | None:
        key = row.question.strip().lower()
        part = self.parts.get(key)
        if part is None:
            return None
        question = self.questions[key]
        text, _ = clean_answer(row.answer)
        answer = LocatedAnswer(question.id, text, start=0, end=len(text), method="label")
        return part, ParsedSubmission(text=text, format="text", answers={question.id: answer})

    def _written(self, prepared: list[_Prepared]
                 ) -> Iterator[tuple[list[RubricItem], LocatedAnswer, GradingContext]]:
        """The rows' written items, answers and contexts (rows with a non-empty answer)."""
        for entry in prepared:
            if entry is None:
                continue
            part, submission = entry
            question = part.rubric.questions[0]
            items = [i for i in question.items if i.grader == "written"]
            answer = submission.answers.get(question.id)
            if not items or answer is None or not answer.text.strip():
                continue
            yield items, answer, GradingContext(rubric=part.rubric, question=question,
                                                submission=submission, resources=self.resources)

    def _uncached(self, prepared: list[_Prepared]) -> list[str]:
        """Every text the written grader will compare for these rows and that is not cached
        (vectors found on disk are read now): queued together, in one call, by `grade`."""
        embedder = self._embedder
        if embedder is None:
            return []
        grader = WrittenGrader()
        texts = [t for items, answer, context in self._written(prepared)
                 for t in grader.texts_to_embed(items, answer, context)]
        return embedder.uncached(texts)

    @staticmethod
    def _key(row: TableRow) -> tuple[str, bytes]:
        # By digest: a hostile table of huge distinct answers must not fill memory with keys.
        return row.question.strip().lower(), hashlib.sha256(row.answer.encode()).digest()

    def _prepare(self, rows: list[TableRow]) -> list[_Prepared]:
        prepared = [None if row.unreadable or self._key(row) in self._known
                    or self._from_store(row) is not None
                    else self._submission(row) for row in rows]
        if self._embedder is None:
            # Looked up in the calling thread, before the helper thread encodes: the model is
            # never loaded by two threads at once.
            for _, _, context in self._written(prepared):
                self._embedder = shared_embedder(context)
                break
        return prepared

    def _finish(self, rows: list[TableRow], prepared: list[_Prepared]) -> Iterator[RowResult]:
        for row, entry in zip(rows, prepared, strict=True):
            stored = self._from_store(row)
            if stored is not None:
                yield RowResult(row, _total(stored), stored)
                continue
            key = self._key(row)
            items = self._known.get(key)
            if items is None and entry is None and not row.unreadable:
                entry = self._submission(row)  # its kept result was dropped since _prepare
            if row.unreadable is not None:
                yield RowResult(row, Decimal(0), (), error=row.unreadable)
                continue
            if row.points is not None:
                part = self.parts.get(row.question.strip().lower())
                given = _instructor(part, row.points) if part is not None else None
                if given is not None:
                    yield RowResult(row, given.points, (given,))
                    continue
            if items is not None:
                self._known.move_to_end(key)
            elif entry is None:
                yield RowResult(row, Decimal(0), (), error=(
                    f"question {row.question[:80]!r} is not in the rubric"))
                continue
            else:
                part, submission = entry
                # Imported when a row is graded: a run whose rows are all stored never loads
                # the engine, its result cache layers or the sandbox (start-up).
                from graders.engine import grade_submission

                if self._plan is not None:
                    self._plan.ready(self.questions[row.question.strip().lower()].id)
                items = grade_submission(part, submission, self.resources).items
                if len(row.answer) > MAX_ANSWER_CHARS:
                    items = tuple(_cut(r) for r in items)
                if self.store is not None:
                    self._fresh.setdefault(self._group(row.question.strip().lower()), {})[
                        answer_digest(row.answer)] = items
                if self.remember > 0:
                    self._known[key] = items
                    if len(self._known) > self.remember:
                        self._known.popitem(last=False)
            yield RowResult(row, _total(items), items)


def _total(items: tuple[ItemResult, ...]) -> Decimal:
    return sum((r.points for r in items if r.counts_toward_total), start=Decimal(0))


def _batches(rows: Iterable[TableRow]) -> Iterator[list[TableRow]]:
    batch: list[TableRow] = []
    for row in rows:
        batch.append(row)
        if len(batch) >= BATCH_ROWS:
            yield batch
            batch = []
    if batch:
        yield batch


def _instructor(part: LoadedRubric, points: Decimal) -> ItemResult | None:
    """The instructor's grade of a row, as the result of the question's single written item."""
    item = the_written_item(part)
    if item is None:
        return None
    return ItemResult(
        item_id=item.id, question=part.rubric.questions[0].id,
        points=max(Decimal(0), min(points, item.points)), max_points=item.points,
        status=Status.GRADED, confidence=1.0, grader="instructor", grader_version="1",
        feedback="Graded by the instructor (points given in the table).",
        student_feedback=None)


def _cut(result: ItemResult) -> ItemResult:
    if result.status is not Status.GRADED:
        return result
    return result.model_copy(update={
        "status": Status.NEEDS_REVIEW,
        "feedback": (f"{result.feedback} The answer is longer than {MAX_ANSWER_CHARS} "
                     "characters and was graded on its beginning only; a grader should "
                     "check it.").strip(),
    })
