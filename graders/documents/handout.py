"""Handout wording pasted into a submission: recognised, so it is never read as the answer.

Students paste the question before answering it, or fill in a template that keeps it. What
marks that text, in any course: the points it is worth ("(2 points)"), the handout's voice
(second person, a question mark, an imperative such as "Describe" or "Explain") and the words
of the rubric question's prompt. Only the paragraphs at the start of a labelled block are
candidates: a student answers after the question, never before it.
"""

from __future__ import annotations

import re
from functools import lru_cache

_CAP = 1200
POINTS_MARK = re.compile(
    r"[(\[]\s*\d{1,2}(?:\.\d)?\s*(?:points?|pts?\.?|marks?)\s*[)\]]", re.IGNORECASE
)
_SECOND_PERSON = re.compile(r"\b(?:you|your)\b", re.IGNORECASE)
_LEAD = re.compile(r"(?:[ \t]*(?:\\textbf\{[^{}\n]{0,40}\}|\\item|\*\*|[-*>#$]|\(\w{1,4}\)|"
                   r"\w{1,4}[.)]|\\\\))*[ \t]*")
_IMPERATIVE = re.compile(
    r"(?:describe|explain|design|show|give|provide|think|briefly|prove|derive|compute|"
    r"calculate|write|implement|report|suppose|assume|consider|recall|hint|what|why|how|"
    r"can|do|does|which|take|one advantage|though|instead|in this|now we|we'll|let's)\b",
    re.IGNORECASE,
)
# The student's own voice at the start of a paragraph: "Answer:", "We can set", "I think".
_ANSWER_VOICE = re.compile(
    r"\W{0,12}(?:(?:my |our |final )?(?:answer|solution)\s*[:.]|(?:we (?:can|get|have|set|"
    r"need|see|choose)|i think|therefore|thus|hence|so)\b)",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z]{4,}")
_STOP = frozenset({
    "that", "this", "with", "what", "when", "then", "than", "from", "have", "your", "such",
    "some", "each", "into", "they", "them", "will", "would", "should", "could", "does", "give",
    "about", "there", "their", "which", "where", "while", "other", "these", "those",
})


@lru_cache(maxsize=256)
def prompt_words(prompt: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(prompt.lower()) if w not in _STOP)


def prompt_overlap(paragraph: str, words: frozenset[str]) -> float:
    """Share of the prompt's content words that the paragraph repeats."""
    if not words:
        return 0.0
    found = set(_WORD.findall(paragraph[:_CAP].lower()))
    return len(words & found) / len(words)


def is_handout(paragraph: str, words: frozenset[str] = frozenset()) -> bool:
    """Does this paragraph read as the handout's question rather than a student's answer?"""
    head = paragraph[:_CAP]
    if POINTS_MARK.search(head, 0, 120):
        return True
    lead = _LEAD.match(head)
    body = head[lead.end():] if lead else head
    if _ANSWER_VOICE.match(body):
        return False
    imperative = _IMPERATIVE.match(body) is not None
    asks = "?" in head
    second = _SECOND_PERSON.search(head) is not None
    overlap = prompt_overlap(head, words)
    if second and (asks or imperative or overlap >= 0.5):
        return True
    return imperative and asks and overlap >= 0.3
