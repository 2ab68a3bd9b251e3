"""From pattern findings and similarity to points, a confidence and the feedback that explains."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_UP, Decimal

from graders.results import Evidence
from graders.written.calibration import Calibration, TwoWayCalibration
from graders.written.config import WrittenConfig, element_label
from graders.written.contradiction import Opposite
from graders.written.exemplars import ExemplarEstimate, weighted_by_doubt
from graders.written.matching import DENIED_CLAIM, PatternVerdict, PhrasingMatch
from graders.written.similarity import AnswerVectors, Closest
from graders.written.similarity_model import SimilarityModel, clip
from graders.written.text import Sentence

__all__ = ["SimilarityModel"]

# Cosine (all-MiniLM-L6-v2) from which an exemplar counts as the same answer, and below which
# an answer's closest stretch is unrelated to the reference.
EXEMPLAR_MATCH = 0.85
UNRELATED = 0.1
# Confidence at most, when an answer credited (nearly) in full may state the opposite of a
# reference: below any review threshold in use, so a person decides.
OPPOSITE_CONFIDENCE = 0.35
# Confidence at most for an answer with no prose (a formula or a number): the reference is
# prose, and similarity cannot tell "O(n)" right from wrong.
NO_PROSE_CONFIDENCE = 0.3
# Cosine of the answer's closest stretch with the reference below which it is far from every
# reference statement (the bar from which a clause may state an element, `meaning.py`): a full
# credit given with the cohort to such an answer is not auto-graded (`_agreed`).
FAR_FROM_REFERENCE = 0.5
# A reference statement of at most this many words is a fragment ("By reference.", "File
# scope."): a sentence that restates it stays below `FAR_FROM_REFERENCE` ("Arrays are passed by
# reference.": cosine 0.32), so that bar says nothing about such an item's answers. Written
# into the calibration when fitted (`TwoWayCalibration.terse_reference_words`).
TERSE_REFERENCE_WORDS = 4
# Confidence at most when a grade rests on an uncertain finding: a phrasing matched weakly
# (it would change the points), or an element stated only outside the item's topic.
UNSURE_CONFIDENCE = 0.5


@dataclass
class Decision:
    points: Decimal
    confidence: float
    feedback: list[str] = field(default_factory=list)
    evidence: list[Evidence] = field(default_factory=list)
    # For the student's message: the answer makes one of the rubric's known wrong claims.
    wrong_claim: bool = False
    # The calibrated review threshold of the model that decided (95% agreement when fitted).
    threshold: float | None = None


def _ramp(score: float, low: float, high: float) -> float:
    return clip((score - low) / (high - low)) if high > low else float(score >= high)


def sentence_evidence(sentence: Sentence, note: str, offset_known: bool) -> Evidence:
    return Evidence(
        kind="sentence", text=sentence.text, note=note,
        start=sentence.start if offset_known else None,
        end=sentence.end if offset_known else None,
    )


def round_to_step(points: Decimal, step: Decimal, maximum: Decimal) -> Decimal:
    steps = (points / step).quantize(Decimal(1), rounding=ROUND_HALF_UP)
    return max(Decimal(0), min(maximum, steps * step))


def from_patterns(
    config: WrittenConfig, max_points: Decimal, verdict: PatternVerdict,
    closest: Closest | None, exemplar: Closest | None, offset_known: bool,
    unfound: Closest | None = None, opposite: Opposite | None = None,
    weak: Sequence[PhrasingMatch] = (), unfound_phrasings: bool = False,
) -> Decision:
    """Patterns decide the points; similarity and exemplars decide how sure we are.

    `closest` compares the answer with the reference statements, `unfound` with the statements
    of the elements the patterns did not find (a paraphrase they may have missed); `opposite`
    is a sentence that may turn a reference statement around, which keeps full credit from
    high confidence (patterns see words, not what the sentence claims about them). `weak` are
    phrasing matches too uncertain to count that would change the points;
    `unfound_phrasings` says phrased elements could not be compared (no sentence encoder).
    """
    decision = Decision(points=verdict.points, confidence=0.0)
    for found in verdict.found.values():
        how = f" ({found.meaning.describe()})" if found.meaning is not None else ""
        where = " (outside this item's topic)" if found.outside_topic else ""
        decision.evidence.append(sentence_evidence(
            found.sentence, f"states: {element_label(found.element)}{how}{where}",
            offset_known))
    missing = ", ".join(element_label(e) for e in verdict.missing)
    similarity = closest.score if closest is not None else None
    if verdict.level == "contradiction" and verdict.contradiction is not None:
        wrong = verdict.contradiction
        decision.evidence.append(
            sentence_evidence(wrong.sentence, "a known wrong claim", offset_known))
        decision.feedback.append(wrong.contradiction.feedback)
        decision.confidence = 0.9
        decision.wrong_claim = True
        if verdict.found:
            # The answer also states what the item asks for ("with a ReLU the network is
            # non-linear; without it the stack is one linear map"): the signals disagree, and
            # only a reader can tell a wrong claim from a condition or a contrast.
            decision.confidence = UNSURE_CONFIDENCE
            stated = ", ".join(element_label(f.element) for f in verdict.found.values())
            decision.feedback.append(
                f"The answer also states {stated}; a grader should check which it claims.")
    elif verdict.level == "full":
        decision.feedback.append(config.feedback or "Full credit.")
        decision.confidence = (
            0.85 if similarity is None else 0.8 + 0.15 * _ramp(similarity, 0.3, 0.7))
    elif verdict.level == "partial" and verdict.partial is not None:
        decision.feedback.append(verdict.partial.feedback or "Partial credit.")
        if missing:
            decision.feedback.append(f"Missing: {missing}.")
        decision.confidence = 0.75
        if unfound is not None and unfound.score >= config.paraphrase_similarity:
            decision.confidence = 0.5
            missed = verdict.missing[unfound.index]
            decision.feedback.append(
                f"A sentence may state '{element_label(missed)}' in other words; "
                "a grader should check it.")
            decision.evidence.append(Evidence(
                kind="sentence", text=" ".join(s.text for s in unfound.unit.sentences),
                note=f"may restate: {element_label(missed)} (cosine {unfound.score:.2f})",
                start=unfound.unit.sentences[0].start if offset_known else None,
                end=unfound.unit.sentences[-1].end if offset_known else None))
    else:
        if missing:
            decision.feedback.append(f"Not found in the answer: {missing}.")
        if config.reference:
            decision.feedback.append(f"Expected: {config.reference[0]}")
        if similarity is None:
            decision.confidence = 0.55  # a paraphrase the patterns miss cannot be ruled out
        else:
            decision.confidence = 0.9 - 0.6 * _ramp(similarity, 0.45, config.paraphrase_similarity)
            if similarity >= config.paraphrase_similarity:
                decision.feedback.append(
                    "The answer reads close to the reference although no key idea was recognised; "
                    "a grader should check it.")
    if exemplar is not None and exemplar.score >= EXEMPLAR_MATCH:
        shown = config.exemplars[exemplar.index]
        if shown.points == decision.points:
            decision.confidence = max(decision.confidence, 0.9)
        else:
            decision.confidence = min(decision.confidence, 0.5)
            decision.feedback.append(
                f"It closely resembles an example answer graded {shown.points} points.")
    if closest is not None and (verdict.level in ("none", "partial") or not verdict.found):
        decision.evidence.append(_closest_evidence(closest, offset_known))
    _unsure(decision, config, verdict, weak, unfound_phrasings, offset_known)
    if opposite is not None and verdict.level == "full":
        decision.confidence = min(decision.confidence, OPPOSITE_CONFIDENCE)
        decision.feedback.append(f"The answer may state the opposite of the reference: "
                                 f"{opposite.describe()} ('{opposite.sentence[:160]}').")
    return decision


def _unsure(decision: Decision, config: WrittenConfig, verdict: PatternVerdict,
            doubts: Sequence[PhrasingMatch], unfound_phrasings: bool, offset_known: bool) -> None:
    """Keep a grade that rests on an uncertain finding below any review threshold in use."""
    labels = {e.id: element_label(e) for e in config.elements}
    labels[DENIED_CLAIM] = "the opposite of a known wrong claim, perhaps a key idea in other words"
    for match in doubts:
        # a known wrong claim the answer may state (`meaning.doubted_contradiction`)
        label = labels.get(match.element_id, "a known wrong claim")
        decision.feedback.append(
            f"A sentence may state '{label}' ({match.describe()}), not counted; a grader should "
            "check it.")
        decision.evidence.append(sentence_evidence(
            match.sentence, f"may state: {label} ({match.describe()})", offset_known))
    outside = [f for f in verdict.found.values() if f.outside_topic]
    for found in outside:
        decision.feedback.append(
            f"'{element_label(found.element)}' is stated only in a sentence about another part "
            "of the question; a grader should check that it answers this one.")
    phrased = [e for e in verdict.missing if e.phrasings]
    if unfound_phrasings and phrased:
        decision.feedback.append(
            "The sentence encoder is unavailable, so the ideas given as phrasings ("
            + ", ".join(element_label(e) for e in phrased) + ") could not be looked for.")
    if doubts or outside or (unfound_phrasings and phrased):
        decision.confidence = min(decision.confidence, UNSURE_CONFIDENCE)


def from_similarity(
    config: WrittenConfig, max_points: Decimal, vectors: AnswerVectors,
    features: Mapping[str, float], model: SimilarityModel | None,
    estimate: ExemplarEstimate | None, offset_known: bool, opposite: Opposite | None,
    words: int, calibration: Calibration, offset: float = 0.0,
    cohort: Mapping[str, float] | None = None, vote_by_doubt: bool = False,
) -> Decision:
    """An item described only by reference statements: calibrated similarity, calibrated doubt.

    The points come from the operator's model or the shipped calibration (`calibration.py`),
    the confidence from the shipped logistic model: the probability that a careful grader gives
    about these points. With graded example answers (exemplars), their points, weighted by how
    close each is to this answer, are blended with the reference score, after moving it by the
    examples' mean offset from the reference model (`offset`); with `vote_by_doubt`, weighted
    by how much the model doubts its own points for this answer (`weighted_by_doubt`). With
    `cohort` features (the
    other students' answers, `cohort.py`) and no exemplars, the calibration's cohort models
    decide points and confidence. An answer that states
    the opposite of the reference never keeps full credit at high confidence.
    """
    closest = vectors.closest(config.reference)
    # The cohort's features join the reference features when the cohort is known and the
    # shipped calibration decides (not the operator's model, nor with graded examples).
    use_cohort = (cohort is not None and model is None and estimate is None
                  and calibration.cohort is not None)
    if use_cohort and cohort is not None:
        features = {**features, **cohort}
    share = (model or calibration.points_model(use_cohort)).predict(features)
    how = "the operator's calibrated similarity" if model is not None else "calibrated similarity"
    if use_cohort:
        how += " and the other students' answers to this question (no grades)"
    feedback = [f"Judged by {how} to the reference (closest cosine {closest.score:.2f})."
                if closest is not None else
                "The answer has no sentence of prose to compare with the reference (a formula, "
                "a number or a single word); the suggestion comes from its words alone."]
    if closest is not None and closest.score < UNRELATED and features["recall"] == 0 \
            and features["hits_recall"] == 0:
        # Off the calibration's data (every fitted answer tried to answer its question): an
        # answer that shares no word and no meaning with the reference earns nothing.
        share = 0.0
        feedback.append("The answer shares no content with the reference.")
    if estimate is not None:
        share = clip(share + offset)
        weight = estimate.weight
        if vote_by_doubt:
            alone = round_to_step(max_points * Decimal(str(round(share, 4))), config.step,
                                  max_points)
            weight = weighted_by_doubt(weight, 1.0 - calibration.confidence_of(
                features, float(alone / max_points), opposite is not None, words, use_cohort))
        share = (1 - weight) * share + weight * estimate.share
        shown = config.exemplars[estimate.nearest]
        feedback.append(
            f"Compared with {estimate.count} graded example answers; the closest (cosine "
            f"{estimate.nearest_score:.2f}) was graded {shown.points} of {max_points}.")
    points = round_to_step(max_points * Decimal(str(round(share, 4))), config.step, max_points)
    rounded = float(points / max_points) if max_points > 0 else 0.0
    # The calibrated probability for the points suggested (with exemplars too: it was fitted
    # without them, and is not raised for a near-identical example, which was measured to let
    # more wrong grades through on Mohler 7-12).
    confidence = calibration.confidence_of(features, rounded, opposite is not None, words,
                                           use_cohort)
    threshold = (calibration.cohort.threshold_95 if use_cohort and calibration.cohort
                 else calibration.threshold_95)
    two_way = calibration.two_way
    if two_way is not None and model is None and estimate is None and \
            two_steps(max_points, config.step) and share > 0:
        points, confidence, threshold = _two_way_verdict(
            two_way, config, max_points, points, features, opposite is not None, words,
            use_cohort, feedback)
    if closest is None:
        confidence = min(confidence, NO_PROSE_CONFIDENCE)
    decision = Decision(points, confidence, feedback, threshold=threshold)
    if opposite is not None and points >= max_points:
        decision.confidence = min(confidence, OPPOSITE_CONFIDENCE)
        feedback.append(f"The answer may state the opposite of the reference: "
                        f"{opposite.describe()} ('{opposite.sentence[:160]}').")
    if closest is not None:
        decision.evidence.append(_closest_evidence(closest, offset_known))
    return decision


def _two_way_verdict(
    two_way: TwoWayCalibration, config: WrittenConfig, max_points: Decimal, points: Decimal,
    features: Mapping[str, float], opposite: bool, words: int, use_cohort: bool,
    feedback: list[str],
) -> tuple[Decimal, float, float]:
    """Full credit or not is the question: the 2-way model decides it, and the confidence is
    that of the verdict (see `calibration.py`); the points, the confidence, the threshold."""
    correct = two_way.correct(features, opposite, words, use_cohort)
    alone = two_way.correct(features, opposite, words, False) if use_cohort else correct
    threshold = two_way.cohort_threshold_95 if use_cohort else two_way.threshold_95
    if correct >= two_way.cut(use_cohort):
        points, confidence = max_points, correct
        if use_cohort:
            confidence, threshold = _agreed(two_way, correct, alone, threshold)
            fragment = two_way.terse_reference_words is not None and terse(
                config.reference, two_way.terse_reference_words)
            if two_way.agreement_threshold is not None and \
                    features["best"] < FAR_FROM_REFERENCE and not fragment:
                confidence = min(confidence, UNSURE_CONFIDENCE)
                feedback.append(
                    f"No stretch of the answer is close to a reference statement (cosine "
                    f"{features['best']:.2f}); a grader should check its full credit.")
    else:
        points = min(points, max(Decimal(0), max_points - config.step))
        confidence = 1.0 - correct
        not_full = two_way.cohort_not_full if use_cohort else two_way.not_full
        if not_full is not None:
            # Both models must say not correct (with the cohort, the higher probability of
            # correct counts), and how often such verdicts were right, out of fold, is the
            # confidence (`calibration.NotFull`).
            confidence = not_full.confidence(1.0 - max(correct, alone))
            threshold = not_full.threshold
    feedback.append(f"Graded as a correct-or-not item: probability {correct:.2f} that a "
                    "careful grader calls the answer correct.")
    return points, confidence, threshold


def _agreed(two_way: TwoWayCalibration, with_cohort: float, alone: float,
            threshold: float) -> tuple[float, float]:
    """A full credit given with the cohort is auto-graded only where the signals agree: the
    answer on its own (its similarity to the reference, no cohort) must say correct too. With
    the calibration's `agreement_threshold`, the confidence is the lower of the two
    probabilities and that threshold applies (chosen on the fitting data with one error added,
    so that its auto-graded full credits err at most 5%; on Mohler, each assignment held out in
    turn, docs/benchmarks.md). Without it (a calibration from before), the answer alone must
    clear its own model's bar, else its lower probability is the confidence. (With the
    agreement threshold, an answer far from every reference statement is held to review too,
    as the threshold was chosen without such answers: `FAR_FROM_REFERENCE`; not when the
    reference is a fragment, `terse`.)"""
    if two_way.agreement_threshold is not None:
        return min(with_cohort, alone), two_way.agreement_threshold
    if alone < max(two_way.cut(False), two_way.threshold_95):
        return min(with_cohort, alone), threshold
    return with_cohort, threshold


def terse(references: Sequence[str], words: int = TERSE_REFERENCE_WORDS) -> bool:
    """Whether every reference statement is a fragment of at most `words` words."""
    return bool(references) and all(len(r.split()) <= words for r in references)


def two_steps(max_points: Decimal, step: Decimal) -> bool:
    """Whether the item's points have at most two steps (full credit, half, nothing)."""
    return max_points > 0 and max_points <= 2 * step


def student_message(decision: Decision, max_points: Decimal, review: bool) -> str:
    """What the student sees: what is wrong and a hint, never the reference or machine details."""
    if review:
        return "A grader will check this answer; the points may change."
    if decision.wrong_claim:
        return ("Your answer makes a claim that is not correct; re-read the relevant part of "
                "the material and check the direction of your statement.")
    if decision.points >= max_points:
        return "Full credit."
    if decision.points > 0:
        return ("Partial credit: your answer does not yet state every key idea the question "
                "asks for; say why, not only what.")
    return ("Your answer does not state the key idea the question asks for; revisit the "
            "question's main concept.")


def _closest_evidence(closest: Closest, offset_known: bool) -> Evidence:
    first, last = closest.unit.sentences[0], closest.unit.sentences[-1]
    return Evidence(
        kind="sentence", text=" ".join(s.text for s in closest.unit.sentences),
        note=f"closest to the reference (cosine {closest.score:.2f})",
        start=first.start if offset_known else None, end=last.end if offset_known else None,
    )
