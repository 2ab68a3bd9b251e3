"""Which sentences establish an item's elements or state one of its known wrong claims."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from graders.written.config import Contradiction, Element, PartialCredit, Topic, WrittenConfig
from graders.written.patterns import PatternHit, compile_pattern, find_any
from graders.written.text import Sentence


@dataclass(frozen=True)
class ElementFound:
    element: Element
    sentence: Sentence
    hit: PatternHit


@dataclass(frozen=True)
class ContradictionFound:
    contradiction: Contradiction
    sentence: Sentence
    hit: PatternHit


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
        for sentence in sentences:
            hit = find_any(element.patterns, sentence.norm)
            if hit is not None:
                found[element.id] = ElementFound(element, sentence, hit)
                break
    return found


def find_contradiction(
    config: WrittenConfig, sentences: Sequence[Sentence]
) -> ContradictionFound | None:
    """The known wrong claim that costs the most, if the answer makes one."""
    worst: ContradictionFound | None = None
    for contradiction in config.contradictions:
        for sentence in sentences:
            hit = find_any(contradiction.patterns, sentence.norm)
            if hit is None:
                continue
            if worst is None or contradiction.points < worst.contradiction.points:
                worst = ContradictionFound(contradiction, sentence, hit)
            break
    return worst


def pattern_verdict(
    config: WrittenConfig, max_points: Decimal, sentences: Sequence[Sentence]
) -> PatternVerdict:
    found = find_elements(config, sentences)
    required = config.required
    missing = tuple(e for e in config.elements if e.id in required and e.id not in found)
    partial: PartialCredit | None = None
    if not missing:
        points, level = max_points, "full"
    else:
        reached = [p for p in config.partial if all(w in found for w in p.when)]
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


def on_topic(topic: Topic | None, sentences: Sequence[Sentence]) -> list[Sentence]:
    """The sentences about the item's subject (see `Topic`)."""
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
        else:
            neutral.append(sentence)
        if current:
            mine.append(sentence)
    return mine if any(
        _first(topic.patterns, s.norm) is not None for s in mine) else neutral
