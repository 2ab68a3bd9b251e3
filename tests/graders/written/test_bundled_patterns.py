"""How many hand-written patterns the bundled rubrics' written items hold (issue #29: ideas in
plain words, patterns only where meaning alone misses: a formula, a symbol, a term of art).

Counted: every entry of an element's `patterns`, of a contradiction's and of a topic's
(`patterns` and `others`). The ceiling is today's count: it only goes down.
"""

from __future__ import annotations

from graders.rubric import bundled_rubric_paths, load_rubric
from graders.written.config import WrittenConfig

CEILING = 103


def count_patterns() -> dict[str, int]:
    counts: dict[str, int] = {}
    for path in bundled_rubric_paths():
        rubric = load_rubric(path).rubric
        total = 0
        for question in rubric.questions:
            for item in question.items:
                if item.grader != "written":
                    continue
                config = WrittenConfig.model_validate(item.config)
                total += sum(len(e.patterns) for e in config.elements)
                total += sum(len(c.patterns) for c in config.contradictions)
                if config.topic is not None:
                    total += len(config.topic.patterns) + len(config.topic.others)
        counts[rubric.slug] = total
    return counts


def test_hand_written_patterns_stay_under_the_ceiling() -> None:
    counts = count_patterns()
    assert sum(counts.values()) <= CEILING, counts


def test_every_bundled_phrasing_is_a_sentence_not_a_keyword() -> None:
    for path in bundled_rubric_paths():
        for question in load_rubric(path).rubric.questions:
            for item in question.items:
                if item.grader == "written":
                    for element in WrittenConfig.model_validate(item.config).elements:
                        assert all(len(p.split()) >= 4 for p in element.phrasings), element.id


if __name__ == "__main__":
    found = count_patterns()
    print(found, sum(found.values()))
