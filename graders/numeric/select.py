"""Which extracted value answers which item, when one answer holds several (B1: d_head, the
per-matrix count and the total). The label before a value and cues near it, the value itself
(the key, a known mistake, a coarser rounding of the key), and being boxed or final decide;
each value answers at most one item. Another value labelled for the same item with a different
value is a rival: the grader sends the item to review with both rather than pick silently.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from graders.documents.cues import NormalisedText, compile_cues, found_cues
from graders.documents.invisible import Shown
from graders.numeric.arith import Number
from graders.numeric.config import NumericConfig
from graders.numeric.extract import Candidate, Extraction, Value
from graders.numeric.hedges import hedged, listed_beside, negations
from graders.numeric.restatements import rounded_to_count
from graders.numeric.rounding import coarser_rounding
from graders.numeric.units import in_unit, unit_before, unit_factor


@dataclass(frozen=True)
class Choice:
    candidates: tuple[Candidate, ...]  # one, or the components of an assembled vector
    value: Value
    cues: tuple[str, ...]
    confidence: float
    rivals: tuple[Candidate, ...] = ()  # labelled for the item too, with a different value
    doubt: str = ""  # why the confidence is low, for the reader who checks it
    negated: bool = False  # the answer negates the value (`≠ 64`): the student is told neutrally


def written_choice(choice: Choice, shown: Shown) -> Choice:
    """A choice read in the text as shown, its values placed in the text as written."""
    def placed(candidate: Candidate) -> Candidate:
        start, end = shown.written_start(candidate.start), shown.written_end(candidate.end)
        source = shown.written[start:end] if shown.text[candidate.start:candidate.end] \
            == candidate.source else candidate.source
        return replace(candidate, start=start, end=end, source=source)
    return replace(choice, candidates=tuple(map(placed, choice.candidates)),
                   rivals=tuple(map(placed, choice.rivals)))


def close(value: Number, target: float, config: NumericConfig) -> bool:
    # a count is exact unless the rubric declares how far off it may be (a cache's bytes
    # written `5.37e8` within `rel_tolerance: 0.002`)
    declared = config.abs_tolerance is not None or config.rel_tolerance is not None
    if config.kind == "integer" and not declared:
        if isinstance(value, Fraction):
            return value == round(target)
        return abs(value - target) <= 1e-9 * max(1.0, abs(target))
    tolerance = default_tolerance(target, config)
    return abs(float(value) - target) <= tolerance + 1e-12


FACTOR_TOLERANCE = 0.02  # relative, when a factor item gives no tolerance (0.33 for a third)


def default_tolerance(target: float, config: NumericConfig) -> float:
    if config.abs_tolerance is not None:
        return config.abs_tolerance
    if config.rel_tolerance is not None:
        return config.rel_tolerance * abs(target)
    if config.form == "factor":
        # a factor's decimals say nothing of its precision: 1/20 is not 0.1 give or take 0.05
        return FACTOR_TOLERANCE * abs(target)
    text = repr(float(target))
    decimals = len(text.split(".")[1]) if "." in text and "e" not in text else 0
    return 0.5 * 10.0**-decimals


# a count cannot have three decimals: `589.824` groups thousands with a full stop
_DOT_THOUSANDS = re.compile(r"[1-9]\d{0,2}\.\d{3}")


def reading(candidate: Candidate, config: NumericConfig) -> Value:
    """The value as the item means it: a percentage of a probability is divided by 100, a
    count written with a full stop between thousands is read as the count, and a value with a
    unit of size after it (`2 GiB`, `38.6 M`) in the unit or in plain numbers, whichever the
    expected value's magnitude says the item asks for (`units.in_unit`)."""
    value = candidate.value
    if candidate.percent and config.probability and not isinstance(value, tuple):
        return value / 100
    if config.kind == "integer" and _DOT_THOUSANDS.fullmatch(candidate.source):
        return value * 1000  # `589.824` is a count with a full stop for the thousands
    if isinstance(value, tuple) or config.mode != "exact":
        return value
    unit = candidate.trailing if unit_factor(candidate.trailing) else unit_before(candidate.label)
    return in_unit(value, unit, config.expected) if unit else value


def _matches(value: Value, target: object, config: NumericConfig, rounded: bool) -> bool:
    if isinstance(value, tuple) and isinstance(target, list) and len(value) == len(target):
        return all(close(v, float(t), config)
                   or (rounded and coarser_rounding(v, float(t), config.rounding))
                   for v, t in zip(value, target, strict=True))
    if not isinstance(value, tuple) and isinstance(target, int | float):
        return close(value, float(target), config) or (
            rounded and coarser_rounding(value, float(target), config.rounding))
    return False


def _matches_any(value: Value, config: NumericConfig) -> float:
    if config.expected is not None and _matches(value, config.expected, config, False):
        return 3.0
    if any(_matches(value, m.value, config, False) for m in config.known_mistakes):
        return 2.0
    if config.expected is not None and _matches(value, config.expected, config, True):
        return 1.5
    if config.mode == "plausibility" and config.plausible is not None \
            and not isinstance(value, tuple):
        # a reported measurement has no key: lying in the item's plausible window is what
        # "matching" means for it (a run's accuracy, not a page number or a matrix entry)
        low, high = config.plausible
        return 2.0 if low <= float(value) <= high else 0.0
    return 0.0


NEAR = 1000


class _Surroundings:
    """The normalised text before each candidate, built once per candidate however many items
    look at it (every item scores every candidate)."""

    def __init__(self, extraction: Extraction) -> None:
        self.extraction = extraction
        self._texts: dict[int, tuple[NormalisedText, NormalisedText, NormalisedText]] = {}
        self._negated: dict[int, str] | None = None

    @property
    def negated(self) -> dict[int, str]:
        """The values the answer negates (`65, not 64`, `≠ 64`), by position."""
        if self._negated is None:
            self._negated = negations(self.extraction)
        return self._negated

    def of(self, position: int) -> tuple[NormalisedText, NormalisedText, NormalisedText]:
        texts = self._texts.get(position)
        if texts is None:
            extraction = self.extraction
            candidate = extraction.candidates[position]
            statement = extraction.statements[candidate.statement]
            # the cues of a value stand near it: a statement or the one before it that runs on
            # for pages (a list of thousands of numbers) is read NEAR characters back, so that
            # every value does not read the whole statement again
            prefix = extraction.text[max(statement.start, candidate.end - NEAR):candidate.end]
            before = extraction.statement_text(candidate.statement - 1)[-NEAR:]
            own = f"{candidate.label} {candidate.trailing}"
            texts = self._texts[position] = (NormalisedText.of(own),
                                             NormalisedText.of(prefix), NormalisedText.of(before))
        return texts


def _cue_hits(texts: tuple[NormalisedText, NormalisedText, NormalisedText],
              config: NumericConfig) -> tuple[float, tuple[str, ...]]:
    patterns = compile_cues(config.cues)
    label, prefix, before = texts
    own = set(found_cues(label, patterns))
    here = set(found_cues(prefix, patterns)) | own
    near = set(found_cues(before, patterns)) - here
    avoid = set(found_cues(prefix, compile_cues(config.avoid_cues)))
    score = (min(4.0, 2.0 * len(here)) + min(2.0, 1.0 * len(own)) + min(2.0, 1.0 * len(near))
             - 3.0 * len(avoid))
    return score, tuple(sorted(here | near))


def _wants_vector(config: NumericConfig) -> int:
    return len(config.expected) if isinstance(config.expected, list) else 0


def _is_probability(value: Value) -> bool:
    return not isinstance(value, tuple) and 0 <= float(value) <= 1


def affinity(
    surroundings: _Surroundings, position: int, config: NumericConfig, alone: bool
) -> tuple[float, tuple[str, ...]] | None:
    """How well the candidate at `position` answers an item, or None when it cannot."""
    candidates = surroundings.extraction.candidates
    candidate = candidates[position]
    if candidate.working and not rounded_to_count(candidates, position, config):
        return None  # a value the student's own chain goes on from is not their answer
    if rounded_to_count(candidates, position + 1, config):
        return None  # `30.75 ≈ 31` for a count: the fraction is the working of the count
    length = _wants_vector(config)
    if length:
        if not isinstance(candidate.value, tuple):
            return None
        score = 2.0 if len(candidate.value) == length else 0.5
        if config.probability and not all(_is_probability(v) for v in candidate.value):
            score -= 1.5  # the input of a softmax, not its output
    elif candidate.is_vector:
        return None
    else:
        score = 0.0
    cue_score, cues = _cue_hits(surroundings.of(position), config)
    value_score = _matches_any(reading(candidate, config), config)
    if cue_score <= 0 and value_score == 0 and not alone and not length:
        return None
    score += cue_score + value_score
    # on a tie, the value as written beats its working (`64 (768 / 12)`)
    score += 0.5 * candidate.boxed + 0.5 * candidate.final - 0.1 * candidate.expression
    if config.unit == "percent":
        score += 1.0 if candidate.percent else -0.5
    if position in surroundings.negated:
        score -= NEGATED_PENALTY  # `65, not 64`: the answer is the value it does not deny
    return score, cues


# the rivals a listing of values beside the chosen one adds at most
MAX_LISTED = 8

# more than a match of the key gains over another value labelled for the item
NEGATED_PENALTY = 4.0


SHARED_CONFIDENCE = 0.4  # below any review threshold in use: such a reading goes to a person


def choose(
    extraction: Extraction,
    configs: Sequence[tuple[str, NumericConfig]],
) -> dict[str, Choice]:
    """Assign candidates to items: best pairs first, each candidate used once."""
    alone = len(configs) == 1
    by_id = dict(configs)
    surroundings = _Surroundings(extraction)
    scored: list[tuple[float, int, str, Candidate, tuple[str, ...]]] = []
    for item_id, config in configs:
        for position, candidate in enumerate(extraction.candidates):
            result = affinity(surroundings, position, config, alone)
            if result is not None:
                scored.append((result[0], position, item_id, candidate, result[1]))
    scored.sort(key=lambda s: (s[0], s[1]), reverse=True)
    chosen: dict[str, Choice] = {}
    positions: dict[str, int] = {}
    used: set[int] = set()
    for score, position, item_id, candidate, cues in scored:
        if item_id in chosen or position in used:
            continue
        chosen[item_id] = Choice((candidate,), reading(candidate, by_id[item_id]), cues,
                                 0.95 if cues else 0.85 if score >= 3 else 0.75)
        positions[item_id] = position
        used.add(position)
    for item_id, config in configs:
        length = _wants_vector(config)
        if item_id not in chosen and length:
            assembled = _assemble(extraction, config, length, used)
            if assembled is not None:
                chosen[item_id] = assembled
    taken_by = {position: item_id for item_id, position in positions.items()}
    for _score, position, item_id, candidate, cues in scored:
        if item_id in chosen or not cues or position not in taken_by:
            continue
        # Nothing left for this item, but a value its own cues name was read for another item
        # ("divided by sqrt(d_k) the variance is 1" for the variance and the scaled variance):
        # a reader decides, with this value as the suggestion, rather than "no value found".
        chosen[item_id] = Choice((candidate,), reading(candidate, by_id[item_id]), cues,
                                 SHARED_CONFIDENCE, doubt=f"the value its cues name was also "
                                 f"read for {taken_by[position]}")
    for item_id, position in positions.items():
        chosen[item_id] = _doubted(chosen[item_id], surroundings, position, by_id[item_id], used)
    return chosen


def _doubted(choice: Choice, surroundings: _Surroundings, position: int, config: NumericConfig,
             used: set[int]) -> Choice:
    """The choice with its rivals, and with the reader's doubt when the answer negates the
    value (`≠ 64`: a reader decides) or offers or takes it back for another (`64 or 65`,
    `64 <- no wait, 32`: the other value is a rival)."""
    rivals = list(_rivals(surroundings, position, config, used))
    confidence, doubt = choice.confidence, choice.doubt
    candidates = surroundings.extraction.candidates
    chosen = reading(candidates[position], config)
    for other, why in hedged(surroundings.extraction, position, used):
        candidate = candidates[other]
        if not _same_answer(reading(candidate, config), chosen, config):
            rivals += [] if candidate in rivals else [candidate]
            doubt = doubt or why
    listed = 0
    for other, why in listed_beside(surroundings.extraction, position, used):
        # a shotgun (`32, 64, 128`): a value listed beside the chosen one that could answer the
        # item is a rival; another magnitude (`64, 1000`: a count of something else) is not
        candidate = candidates[other]
        value = reading(candidate, config)
        if candidate in rivals or _same_answer(value, chosen, config):
            continue
        if _plausible_rival(value, chosen, config) or _is_expected(value, config):
            rivals.append(candidate)
            doubt = doubt or why
            listed += 1
            if listed == MAX_LISTED:
                break  # a reader needs to see that there are several, not all of a thousand
    negated = surroundings.negated.get(position)
    if negated:
        confidence = min(confidence, SHARED_CONFIDENCE)
        doubt = f"the answer negates the value it gives: “{negated}”"
    return Choice(choice.candidates, choice.value, choice.cues, confidence, tuple(rivals), doubt,
                  bool(negated))


def _same_answer(value: Value, chosen: Value, config: NumericConfig) -> bool:
    """Equal within the tolerance, or one a coarser rounding of the other (`0.6652` and
    `0.67` are one answer written twice)."""
    if isinstance(value, tuple) and isinstance(chosen, tuple):
        if len(value) != len(chosen):
            return False
        return all(_same_number(v, c, config) for v, c in zip(value, chosen, strict=True))
    if isinstance(value, tuple) or isinstance(chosen, tuple):
        return False
    return _same_number(value, chosen, config)


def _same_number(value: Number, chosen: Number, config: NumericConfig) -> bool:
    return (close(value, float(chosen), config)
            or coarser_rounding(value, float(chosen), config.rounding)
            or coarser_rounding(chosen, float(value), config.rounding))


def _plausible_rival(value: Value, chosen: Value, config: NumericConfig) -> bool:
    if isinstance(value, tuple):
        return isinstance(chosen, tuple) and len(value) == len(chosen) and (
            not config.probability or all(_is_probability(v) for v in value))
    if isinstance(chosen, tuple):
        return False
    if any(_matches(value, m.value, config, False) for m in config.known_mistakes):
        return True
    anchor = abs(float(config.expected)) if isinstance(config.expected, int | float) \
        else abs(float(chosen))
    return anchor / 10 <= abs(float(value)) <= anchor * 10


# a value the student does not assert: conditional, negated, a mistake named or an example
# ("with biases the total would be 1,771,776", "not 2,359,296", "e.g. 0.5")
_HYPOTHETICAL = re.compile(
    r"\b(?:would|could|if|not|n't|wrong|incorrect|mistake|instead|rather|versus|vs|e\.g|"
    r"example|suppose|assume)\b", re.IGNORECASE)


def _rivals(surroundings: _Surroundings, position: int, config: NumericConfig,
            used: set[int]) -> tuple[Candidate, ...]:
    """Other results (a chain's end, not its working) whose own label names the item, with a
    value that differs from the chosen one beyond the tolerance and rounding, and that could be
    an answer to it (same magnitude; a vector of the same length)."""
    patterns = compile_cues(config.cues)
    if not patterns:
        return ()
    avoid = compile_cues(config.avoid_cues)
    candidates = surroundings.extraction.candidates
    chosen = reading(candidates[position], config)
    found: list[Candidate] = []
    # whether a statement is hypothetical, once per statement: a list of thousands of values
    # is one statement, read once, not once per value
    hypothetical: dict[int, bool] = {}
    for other_position, other in enumerate(candidates):
        if other_position in used or other.is_vector != isinstance(chosen, tuple) \
                or rounded_to_count(candidates, other_position + 1, config):
            continue
        value = reading(other, config)
        if _same_answer(value, chosen, config):
            continue
        # The expected value itself, stated in the answer (not as the working of a chain that
        # concludes another value, `768/12 = 96`) and read for no other item, is a rival
        # wherever it stands ("d_k = 64 terms; variance 8" was a confident 0 for the 8).
        expected = not other.working and _is_expected(value, config)
        if not expected and (other.working or not _plausible_rival(value, chosen, config)):
            continue
        if other.statement not in hypothetical:
            statement = surroundings.extraction.statement_text(other.statement)
            hypothetical[other.statement] = _HYPOTHETICAL.search(statement) is not None
        if hypothetical[other.statement]:
            continue
        label = surroundings.of(other_position)[0]
        if expected or (any(True for _ in found_cues(label, patterns))
                        and not any(True for _ in found_cues(label, avoid))):
            found.append(other)
    return tuple(found)


def _is_expected(value: Value, config: NumericConfig) -> bool:
    return config.mode == "exact" and isinstance(config.expected, int | float) \
        and not isinstance(value, tuple) and close(value, float(config.expected), config)


def _assemble(
    extraction: Extraction, config: NumericConfig, length: int, used: set[int]
) -> Choice | None:
    """A vector written as separate values (`softmax(2.0) = \\boxed{0.665}` on three lines,
    `p_1 = 0.665, p_2 = 0.245, p_3 = 0.090`)."""
    free = [(i, c) for i, c in enumerate(extraction.candidates)
            if i not in used and not c.is_vector]
    pools = ([x for x in free if x[1].boxed], [x for x in free if x[1].final],
             [x for x in free if not x[1].working and not x[1].listed])
    for pool in pools:
        if config.probability:
            pool = [x for x in pool if _is_probability(reading(x[1], config))]
        if len(pool) >= length:
            picked = pool[-length:]
            value = tuple(reading(c, config) for _, c in picked)
            return Choice(tuple(c for _, c in picked), value, (), 0.8)  # type: ignore[arg-type]
    return None
