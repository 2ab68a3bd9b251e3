"""Which sentences establish an item's elements or state one of its known wrong claims."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

from graders.written.config import (
    Contradiction,
    Element,
    PartialCredit,
    Topic,
    WrittenConfig,
    condition_ids,
    conditions_met,
)
from graders.written.patterns import (
    PREVENTS,
    PatternHit,
    compile_pattern,
    find_any,
    find_prevented,
)
from graders.written.text import Sentence
from graders.written.wording import plain_claim

# The `element_id` of a doubt that is no element: a stretch that denies a known wrong claim
# (`verdict.doubted_contradiction`; a stretch that may state one has "").
DENIED_CLAIM = "(denies a known wrong claim)"


@dataclass(frozen=True)
class PhrasingMatch:
    """The answer's stretch closest to one of an element's phrasings, and how sure that is."""

    element_id: str
    phrasing: str
    sentence: Sentence
    clause: str
    cosine: float
    overlap: float  # share of the phrasing's content words the clause uses
    strong: bool

    def describe(self) -> str:
        return f"by meaning: '{self.phrasing}', cosine {self.cosine:.2f}"


@dataclass(frozen=True)
class ElementFound:
    """Where an element is stated: by a pattern's hit, or by a phrasing's strong match."""

    element: Element
    sentence: Sentence
    hit: PatternHit | None = None
    meaning: PhrasingMatch | None = None
    # Stated only in a sentence the item's `topic` does not read (see `on_topic`).
    outside_topic: bool = False


@dataclass(frozen=True)
class ContradictionFound:
    """Where a known wrong claim is stated: by a pattern's hit, or by a phrasing's strong
    match (`meaning`)."""

    contradiction: Contradiction
    sentence: Sentence
    hit: PatternHit | None = None
    meaning: PhrasingMatch | None = None


@dataclass(frozen=True)
class PatternVerdict:
    """What the patterns alone say: points, the level reached and what supports it."""

    points: Decimal
    level: str  # "full", "partial", "none" or "contradiction"
    found: dict[str, ElementFound]
    missing: tuple[Element, ...]
    partial: PartialCredit | None
    contradiction: ContradictionFound | None


def find_elements(config: WrittenConfig, sentences: Sequence[Sentence]) -> dict[str, ElementFound]:
    found: dict[str, ElementFound] = {}
    for element in config.elements:
        if not element.patterns:
            continue
        prevents = _stated_as_prevented(element)
        for sentence in sentences:
            hit = _find_read(element.patterns, sentence.norm)
            if hit is None and prevents:
                hit = next((h for p in element.patterns
                            if (h := find_prevented(p, sentence.norm)) is not None), None)
            if hit is not None:
                found[element.id] = ElementFound(element, sentence, hit)
                break
    return found


def _find_read(patterns: tuple[str, ...], norm: str) -> PatternHit | None:
    """A pattern's hit in the sentence as written, or else as the phrasing matcher reads it
    (`wording.plain_claim`: "at once" is "simultaneously", "has no notion of" is "ignores"):
    a pattern and a phrasing of one element read the same words."""
    hit = find_any(patterns, norm)
    plain = plain_claim(norm) if hit is None else norm
    return find_any(patterns, plain) if plain != norm[:2000] and hit is None else hit


def _stated_as_prevented(element: Element) -> bool:
    """Whether the element's own texts state it as what something prevents."""
    return any(PREVENTS.search(t) for t in (*element.phrasings, element.statement,
                                             element.label))


def find_contradiction(
    config: WrittenConfig, sentences: Sequence[Sentence]
) -> ContradictionFound | None:
    """The known wrong claim that costs the most, if the answer makes one."""
    worst: ContradictionFound | None = None
    for contradiction in config.contradictions:
        if not contradiction.patterns:
            continue  # given by phrasings only: `graders.written.meaning` looks for it
        for sentence in sentences:
            hit = _find_read(contradiction.patterns, sentence.norm)
            if hit is None:
                continue
            if worst is None or contradiction.points < worst.contradiction.points:
                worst = ContradictionFound(contradiction, sentence, hit)
            break
    return worst


def found_in(config: WrittenConfig, read: Sequence[Sentence],
             sentences: Sequence[Sentence] | None = None,
             meaning: Mapping[str, PhrasingMatch] | None = None) -> dict[str, ElementFound]:
    """The elements stated in the sentences the item reads (`read`), by pattern or by the
    phrasing matches given; then, in the sentences `topic` left out, the elements stated
    nowhere else (a topic filter never removes the only sentence that states an element)."""
    found = find_elements(config, read)
    elements = {e.id: e for e in config.elements}
    for element_id, match in (meaning or {}).items():
        if element_id not in found:
            found[element_id] = ElementFound(elements[element_id], match.sentence,
                                             meaning=match)
    if sentences is not None and len(sentences) > len(read):
        kept = set(read)
        others = [s for s in sentences if s not in kept]
        for element_id, where in find_elements(config, others).items():
            if element_id not in found:
                found[element_id] = ElementFound(where.element, where.sentence, where.hit,
                                                 outside_topic=True)
    return found


def pattern_verdict(
    config: WrittenConfig, max_points: Decimal, sentences: Sequence[Sentence],
    found: Mapping[str, ElementFound] | None = None,
) -> PatternVerdict:
    """Points from the elements found (by default: by patterns in `sentences`)."""
    found = dict(find_elements(config, sentences) if found is None else found)
    required = config.required
    unmet = [c for c in required if not conditions_met((c,), set(found))]
    wanted = set(condition_ids(tuple(unmet)))
    missing = tuple(e for e in config.elements if e.id in wanted and e.id not in found)
    partial: PartialCredit | None = None
    if not unmet:
        points, level = max_points, "full"
    else:
        reached = [p for p in config.partial if conditions_met(p.when, set(found))]
        partial = max(reached, key=lambda p: p.points, default=None)
        if partial is not None:
            points, level = min(partial.points, max_points), "partial"
        else:
            points, level = Decimal(0), "none"
    contradiction = find_contradiction(config, sentences)
    if contradiction is not None and contradiction.contradiction.points <= points:
        points, level = contradiction.contradiction.points, "contradiction"
    elif contradiction is not None:
        contradiction = None  # the cap is above what the answer earned anyway
    return PatternVerdict(points, level, found, missing, partial, contradiction)


def _first(patterns: tuple[str, ...], text: str) -> int | None:
    positions = [m.start() for p in patterns if (m := compile_pattern(p).search(text))]
    return min(positions) if positions else None


def topic_among(topic: Topic | None, siblings: Sequence[Topic | None]) -> Topic | None:
    """The topic, its other subjects read from the question's other items' topics
    (`siblings`) when it names none itself."""
    if topic is None or topic.others:
        return topic
    others = tuple(p for s in siblings if s is not None for p in s.patterns)
    return topic.model_copy(update={"others": others}) if others else topic


def on_topic(topic: Topic | None, sentences: Sequence[Sentence]) -> list[Sentence]:
    """The sentences about the item's subject (see `Topic`).

    This drops sentences: those after another subject's word until this subject's word comes
    back, and, when the answer never names this subject, every sentence after another
    subject's. `found_in` reads the dropped ones for elements stated nowhere else.
    """
    if topic is None:
        return list(sentences)
    mine: list[Sentence] = []
    neutral: list[Sentence] = []
    current: bool | None = None
    for sentence in sentences:
        own = _first(topic.patterns, sentence.norm)
        other = _first(topic.others, sentence.norm)
        if own is not None and (other is None or own <= other):
            current = True
        elif other is not None:
            current = False
        elif current is None:
            neutral.append(sentence)  # before any subject's word: may be about this one
        if current:
            mine.append(sentence)
    return mine if any(
        _first(topic.patterns, s.norm) is not None for s in mine) else neutral
