"""Where a grader's evidence sits in the answer text a reviewer reads.

Graders record evidence spans (`start`, `end`) in the whole document's text; the stored answer
is the located answer (its own span is the `answer` evidence), so a span inside it is shifted by
the answer's start. Evidence without a usable span (or whose text is not there) is found by its
text, first occurrence only: plain `str.find`, linear in the bounded answer.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

MAX_EVIDENCE = 50
MIN_FIND = 2  # a one-character evidence text would mark the first such character anywhere
SKIP_KINDS = frozenset({"answer", "normalisation", "stdout", "check"})


def _field(evidence: Any, name: str) -> Any:
    if isinstance(evidence, Mapping):
        return evidence.get(name)
    return getattr(evidence, name, None)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def quotes(found: str, quoted: str) -> bool:
    """Whether `found` (the text at an evidence span) is what the evidence quotes (or its
    start), whitespace aside: graders quote a sentence that a Markdown or LaTeX source wraps
    over lines with its line breaks and indents as single spaces. Linear in the span."""
    if not found.strip():
        return False
    if found == quoted[: len(found)]:
        return True
    flat, said = " ".join(found.split()), " ".join(quoted.split())
    return flat == said[: len(flat)]


def answer_start(evidence: Iterable[Any]) -> int | None:
    for item in evidence:
        if _field(item, "kind") == "answer":
            return _int(_field(item, "start"))
    return None


def spans(answer: str, evidence: Iterable[Any]) -> list[tuple[int, int, str]]:
    """(start, end, label) of each evidence text inside `answer`."""
    items = list(evidence)[:MAX_EVIDENCE]
    base = answer_start(items)
    found: list[tuple[int, int, str]] = []
    for item in items:
        kind = str(_field(item, "kind") or "")
        text = str(_field(item, "text") or "")
        if kind in SKIP_KINDS or not text:
            continue
        label = f"{kind}: {_field(item, 'note') or ''}".strip(": ")
        start, end = _int(_field(item, "start")), _int(_field(item, "end"))
        if base is not None and start is not None and end is not None:
            rel = start - base
            # a span that runs past the answer's end is not trusted (a slice would shorten it)
            if (end > start and rel >= 0 and rel + end - start <= len(answer)
                    and quotes(answer[rel : rel + end - start], text)):
                found.append((rel, rel + (end - start), label))
                continue
        if len(text) >= MIN_FIND:
            at = answer.find(text)
            if at >= 0:
                found.append((at, at + len(text), label))
    return found
