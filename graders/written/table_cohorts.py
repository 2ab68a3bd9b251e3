"""A table's cohorts (`cohort.py`) built while the table is graded, question by question.

`build_cohorts` encodes every answer of the table before the first row can be graded. Here the
same encodings (the same chunks of `CHUNK` answers in table order, so the same forward passes
and the same vectors) are queued on the embedder's background threads (`submit`), each with
the table row of its first answer as its priority, and a question's cohort is put where the
written grader finds it (`COHORT_KEY`) once the chunks that hold its answers are in: on a table
ordered by question, rows are graded while later questions' answers are still being encoded.
A cohort is never read before it is whole: rows of a question are graded after `ready`.

The cohorts are those of `build_cohorts` over the same answers (tests/graders/written/
test_table_cohorts.py): every answer is added to its question's cohort in table order.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from graders.embedding import SentenceEmbedder
from graders.rubric_model import LoadedRubric
from graders.written.cohort import Cohort, whole_vector
from graders.written.config import WrittenConfig
from graders.written.settings import WrittenSettings
from graders.written.similarity import AnswerVectors
from graders.written.text import split_sentences

# Answers per encoding call: `build_cohorts`'s batch, so the forward passes are its own.
CHUNK = 512


@dataclass
class _Chunk:
    pairs: list[tuple[str, str]]  # (question id, answer) in table order
    answers: dict[str, AnswerVectors]  # each distinct answer's units
    singles: list[str]  # the distinct one-sentence units: what is encoded


class CohortPlan:
    """Cohorts of `(table row, question id, answer)` triples, encoded in the background."""

    def __init__(self, embedder: SentenceEmbedder, settings: WrittenSettings,
                 published: dict[str, Cohort]) -> None:
        self.embedder = embedder
        self.settings = settings
        self.published = published  # the grader's shared cohorts: whole ones only
        self._chunks: list[_Chunk | None] = []
        self._done = 0  # chunks added to the cohorts
        self._last: dict[str, int] = {}  # question -> the last chunk holding one of its answers
        self._building: dict[str, Cohort] = {}
        self._closing: dict[int, list[str]] = {}  # chunk -> the questions it completes

    def start(self, answers: Iterable[tuple[int, str, str]]) -> None:
        """Queue the encoding of every answer (`(row, question id, text)` in table order)."""
        chunk: list[tuple[int, str, str]] = []
        for triple in answers:
            chunk.append(triple)
            if len(chunk) >= CHUNK:
                self._queue(chunk)
                chunk = []
        if chunk:
            self._queue(chunk)
        for qid, last in self._last.items():
            self._closing.setdefault(last, []).append(qid)

    def _queue(self, triples: list[tuple[int, str, str]]) -> None:
        pairs = [(qid, text) for _, qid, text in triples]
        answers = {text: AnswerVectors(self.embedder, split_sentences(text),
                                       self.settings.max_chars, self.settings.max_sentences)
                   for text in dict.fromkeys(text for _, text in pairs)}
        singles = list(dict.fromkeys(u.text for found in answers.values() for u in found.units
                                     if len(u.sentences) == 1))
        if singles:
            self.embedder.submit(singles, priority=triples[0][0])
        for qid, _ in pairs:
            self._last[qid] = len(self._chunks)
        self._chunks.append(_Chunk(pairs, answers, singles))

    def ready(self, qid: str) -> None:
        """Make the question's cohort whole and published (waiting for its encodings)."""
        last = self._last.get(qid)
        while last is not None and self._done <= last:
            self._add(self._done)

    def finish(self) -> dict[str, Cohort]:
        """Every cohort, whole and published."""
        while self._done < len(self._chunks):
            self._add(self._done)
        return dict(self._building)

    def _add(self, index: int) -> None:
        chunk = self._chunks[index]
        assert chunk is not None
        self._chunks[index] = None  # its answers are not kept once added
        if chunk.singles:
            self.embedder.embed(chunk.singles)  # waits for the chunk's encoding
        vectors = {text: whole_vector(found) for text, found in chunk.answers.items()}
        for qid, text in chunk.pairs:
            self._building.setdefault(qid, Cohort()).add(text, vectors[text])
        self._done = index + 1
        for qid in self._closing.get(index, ()):
            self.published[qid] = self._building[qid]


def reference_only(part: LoadedRubric) -> bool:
    """Whether the question has a written item described only by reference statements."""
    for item in part.rubric.questions[0].items:
        if item.grader == "written":
            config = WrittenConfig.model_validate(item.config)
            if config.reference and not config.elements:
                return True
    return False
