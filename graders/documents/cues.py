"""Matching a rubric's cue terms against messy OCR/LaTeX text.

`d_{\\text{model}}`, `d_model` and `d-model` must all match the cue `d_model`, and the cue
`each` must not match inside `reach`; both text and cue go through the same normalisation.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

_WRAPPERS = re.compile(r"\\(?:text|mathrm|mathit|mathbf|operatorname|textbf|textit|emph)\s*\{")
_GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "θ": "theta", "λ": "lambda",
    "μ": "mu", "σ": "sigma", "Σ": "sum", "∑": "sum", "√": "sqrt", "×": "times", "·": "cdot",
    "→": "rightarrow", "≈": "approx", "∞": "infty", "π": "pi",
}


def normalise(text: str) -> str:
    """Lower-case, LaTeX wrappers and braces removed, `-`/`_` unified, spaces collapsed."""
    out = _WRAPPERS.sub("", text)
    for symbol, name in _GREEK.items():
        out = out.replace(symbol, f" {name} ")
    out = out.lower().replace("\\", " ").replace("$", " ")
    out = re.sub(r"[{}]", "", out)
    # `d-model`, `d_model` and `d - model` are one word; a dash that opens a list item or
    # follows a symbol is punctuation (otherwise `- no pretraining` reads as `_no ...`, and no
    # word cue matches the first word of any bulleted line)
    out = re.sub(r"(?<=\w)\s*[-_]\s*(?=\w)", "_", out)
    out = re.sub(r"-+", " ", out)
    return re.sub(r"\s+", " ", out).strip()


@dataclass(frozen=True)
class CuePattern:
    cue: str
    regex: re.Pattern[str]
    spaced: bool  # matched against the spaced form (words) or the compact form (symbols)
    # a substring every match contains: most cues are absent from most passages, and a
    # substring test rules them out far faster than the regex
    literal: str = ""


def compile_cue(cue: str) -> CuePattern | None:
    norm = normalise(cue)
    if not norm:
        return None
    if re.fullmatch(r"[a-z ]+", norm):
        return CuePattern(cue, re.compile(r"\b" + re.escape(norm)), True, norm)
    compact = norm.replace(" ", "")
    body = re.escape(compact)
    if compact[0].isdigit():
        body = r"(?<![0-9.])" + body
    if compact[-1].isdigit():
        body += r"(?![0-9])"
    return CuePattern(cue, re.compile(body), False, compact)


@dataclass(frozen=True)
class NormalisedText:
    spaced: str
    compact: str

    @classmethod
    def of(cls, text: str) -> NormalisedText:
        spaced = normalise(text)
        return cls(spaced, spaced.replace(" ", ""))

    def contains(self, pattern: CuePattern) -> bool:
        text = self.spaced if pattern.spaced else self.compact
        if pattern.literal and pattern.literal not in text:
            return False
        return bool(pattern.regex.search(text))


def compile_cues(cues: Iterable[str]) -> list[CuePattern]:
    return list(_compiled(tuple(cues)))


# Cue lists come from rubrics, a handful per process, yet every located unit and every numeric
# candidate asks for them: compiled once, they cost a dictionary lookup instead of ~0.1 ms each.
@lru_cache(maxsize=1024)
def _compiled(cues: tuple[str, ...]) -> tuple[CuePattern, ...]:
    seen: set[str] = set()
    patterns: list[CuePattern] = []
    for cue in cues:
        pattern = compile_cue(cue)
        if pattern is not None and pattern.regex.pattern not in seen:
            seen.add(pattern.regex.pattern)
            patterns.append(pattern)
    return tuple(patterns)


def found_cues(text: str | NormalisedText, patterns: Iterable[CuePattern]) -> Iterator[str]:
    norm = text if isinstance(text, NormalisedText) else NormalisedText.of(text)
    for pattern in patterns:
        if norm.contains(pattern):
            yield pattern.cue
