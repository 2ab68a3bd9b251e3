"""The short quiz the grade-table tests grade: a stack question with a pattern element, two
free-text questions; each test file builds its rubric from these."""

from __future__ import annotations

from typing import Any

STACK: dict[str, Any] = {
    "id": "stack", "prompt": "In what order does a stack remove items?",
    "items": [{"id": "stack.order", "points": 2, "grader": "written", "config": {
        "elements": [{"id": "lifo", "patterns": ["last in,? first out", "lifo"]}],
        "reference": ["A stack removes the most recently added item first."]}}]}
HEADS: dict[str, Any] = {
    "id": "heads", "prompt": "Why use several attention heads?",
    "items": [{"id": "heads.why", "points": 5, "grader": "written", "config": {
        "reference": ["Several heads attend to different positions in parallel."]}}]}
ORDER: dict[str, Any] = {
    "id": "order", "prompt": "Why does a transformer need position information?",
    "items": [{"id": "order.why", "points": 3, "grader": "written", "config": {
        "reference": ["Self-attention alone ignores the order of the tokens."]}}]}
# Answers to STACK and HEADS, right, wrong, contradicting and empty: the start of the tables
# the tests grade.
ANSWERS: list[str] = [
    "Last in, first out.",
    "Items leave in random order.",
    "Different heads look at different positions at the same time.",
    "Each head can learn its own relation between tokens. They run in parallel.",
    "Heads are not parallel; they attend to the same position.",
    "",
]


def quiz(*questions: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """A rubric of `questions` (STACK with the label Q1 when `labelled`)."""
    labelled = extra.pop("labelled", False)
    chosen = [{**q, "labels": ["Q1"]} if labelled and q is STACK else q for q in questions]
    return {"slug": "quiz", "title": "Quiz", **extra, "questions": chosen}
