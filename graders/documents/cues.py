"""Matching a rubric's cue terms against messy OCR/LaTeX text.

`d_{\\text{model}}`, `d_model` and `d-model` must all match the cue `d_model`, and the cue
`each` must not match inside `reach`; both text and cue go through the same normalisation.

A cue made only of words is read the way students write it: identifiers are words
(`positional_encoding`, `positionalEncoding` and a backticked `positional_encodings` all say
"positional encoding"), a cue word stands for its inflections (`stacking` for `stacked`, `issues`
for `issue`; a word in the text may always carry a longer ending), and each word of a small set
of near-synonyms common in this domain stands for the others (see _SYNONYMS).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from graders.notation import skip_invisible

_WRAPPERS = re.compile(r"\\(?:text|mathrm|mathit|mathbf|operatorname|textbf|textit|emph)\s*\{")
_GREEK = {
    "α": "alpha", "β": "beta", "γ": "gamma", "δ": "delta", "θ": "theta", "λ": "lambda",
    "μ": "mu", "σ": "sigma", "Σ": "sum", "∑": "sum", "√": "sqrt", "×": "times", "·": "cdot",
    "→": "rightarrow", "≈": "approx", "∞": "infty", "π": "pi",
}


# Words that name one idea in this domain's writing: a cue word matches every word of its set.
# Kept small on purpose: each set is words students use interchangeably for the same thing
# (a "trainable" encoding is the "learnable" one the handout asks for), never related ideas.
_SYNONYMS: tuple[tuple[str, ...], ...] = (
    ("learnable", "trainable", "learned", "learnt"),
    ("dataset", "data set"),
    ("dummy", "synthetic", "toy"),
)
_SYNONYM_OF = {word: group for group in _SYNONYMS for word in group}
# a lower-case letter, then a capital and a lower-case letter: the seam of a camelCase
# identifier (`positionalEncoding`; not inside an acronym such as `RoPE`); linear
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z][a-z])")
_MARKS = re.compile(r"[`*]")
# endings a cue word drops to stand for its inflections (longest first), and the letters its
# stem keeps ("keys" -> "key"; but "speed", "embed" and "string" are no inflections)
_ENDINGS = (("ings", 4), ("ing", 4), ("ies", 4), ("ed", 4), ("s", 3))
_ENDING_KEEPS = ("ss", "us", "is")  # "loss", "bus", "basis" are not plurals
_MAX_ENDING = 4  # the most letters a non-final cue word's text form may add to its stem


def normalise(text: str, braces: str = "") -> str:
    """Lower-case, LaTeX wrappers and braces removed (or replaced by `braces`), `-`/`_` unified,
    spaces collapsed; invisible format characters (`atten<U+00AD>tion`) are left out, as every
    page shows the text."""
    out = _WRAPPERS.sub("", skip_invisible(text))
    for symbol, name in _GREEK.items():
        out = out.replace(symbol, f" {name} ")
    out = out.lower().replace("\\", " ").replace("$", " ")
    out = re.sub(r"[{}]", braces, out)
    # `d-model`, `d_model` and `d - model` are one word; a dash that opens a list item or
    # follows a symbol is punctuation (otherwise `- no pretraining` reads as `_no ...`, and no
    # word cue matches the first word of any bulleted line)
    out = re.sub(r"(?<=\w)\s*[-_]\s*(?=\w)", "_", out)
    out = re.sub(r"-+", " ", out)
    return re.sub(r"\s+", " ", out).strip()


def as_words(text: str, camel: bool = True) -> str:
    """The normalised text with identifiers read as words: snake_case split, and camelCase
    unless `camel` is False (a brand such as `PyTorch` is one word)."""
    # a brace parts words (`\\sqrt{d_k}` is "sqrt d k"); `d_{model}` is still "d model"
    return _words(normalise(_CAMEL.sub(" ", text) if camel else text, braces=" "))


def _words(spaced: str) -> str:
    # code span and emphasis marks are no words ("a **trainable** `positional_encoding`")
    out = spaced.replace("_", " ")
    if "`" in out or "*" in out:
        out = " ".join(_MARKS.sub(" ", out).split())
    return out


@dataclass(frozen=True)
class CuePattern:
    cue: str
    regex: re.Pattern[str]
    spaced: bool  # matched against the words form (words) or the compact form (symbols)
    # a substring every match contains: most cues are absent from most passages, and a
    # substring test rules them out far faster than the regex
    literal: str = ""


def stem(word: str) -> str:
    """A cue word without an inflectional ending ("stacking" -> "stack", "queries" -> "quer")."""
    if word.endswith(_ENDING_KEEPS):
        return word
    for ending, keeps in _ENDINGS:
        if word.endswith(ending) and len(word) - len(ending) >= keeps:
            return word[:-len(ending)]
    return word


def _word_forms(word: str, last: bool) -> tuple[str, str]:
    """The regex for one cue word and a literal every match of it contains ("" if none)."""
    group = _SYNONYM_OF.get(word)
    if group is not None:
        # synonyms as written: a stem of one ("learn" of "learned") would name other ideas
        body, literal = "(?:" + "|".join(re.escape(w) for w in group) + ")", ""
    else:
        root = stem(word)
        body, literal = re.escape(root), root
    # the text may write a longer form of any word ("stacked", "positionally"); a final word
    # is matched as a prefix already, and a letter (`d` of `d_model`) is a name, not a stem
    if last or len(word) < 3:
        return body, literal
    return body + rf"\w{{0,{_MAX_ENDING}}}", literal


def _word_cue(cue: str, norm: str) -> CuePattern:
    words = norm.split()
    parts = [_word_forms(w, i == len(words) - 1) for i, w in enumerate(words)]
    literal = max((lit for _, lit in parts), key=len)
    return CuePattern(cue, re.compile(r"\b" + " ".join(body for body, _ in parts)), True,
                      literal)


_PREFIX_CUE = re.compile(r"[a-z]{2,20}(?: [a-z]{2,20}){0,3}\*")
# a sub-part's marker as the rubric writes it, `(a)`, `(ii)`, `(2)`
_MARKER_CUE = re.compile(r"\((?P<part>[a-h]|i{1,3}|iv|vi{0,3}|[1-9])\)")


def _marker_cue(cue: str, part: str) -> CuePattern:
    """The marker `(a)` as students write it: `a)`, `a.`, `a:`, `(a`, and after the question's
    number, `3(a)`, `3a)`, `3.a`, `Q3.a` (emphasis is gone from the words form); standing
    alone, not the end of a word (`sigma)`, `pizza.`) nor of a decimal. A numbered part is
    `(2)` or `2)` only: `2.` ends many a sentence's value."""
    x = re.escape(part)
    if part.isdigit():
        forms = rf"\(?{x}\)"
    else:
        forms = rf"(?:q?[0-9]{{1,2}}\.?)?(?:\({x}\)?|{x}[).:])|q?[0-9]{{1,2}}\.{x}"
    return CuePattern(cue, re.compile(rf"(?<![\w.(])(?:{forms})(?!\w)"), True, part)


def compile_cue(cue: str) -> CuePattern | None:
    norm = normalise(cue)
    if not norm:
        return None
    # words, also joined into an identifier (`self-attention`, `positional_encoding`); a single
    # letter makes it a symbol with a subscript (`d_model`, `W_Q`), matched as written
    words = norm.replace("_", " ").split()
    if marker := _MARKER_CUE.fullmatch(norm):
        return _marker_cue(cue, marker.group("part"))
    if _PREFIX_CUE.fullmatch(norm):
        # `divid*`, as in the written grader's patterns: any word that starts so (divided,
        # dividing, division)
        stem = norm[:-1]
        return CuePattern(cue, re.compile(r"\b" + re.escape(stem) + r"[a-z]*"), True, stem)
    if re.fullmatch(r"[a-z_ ]+", norm) and words and min(map(len, words)) >= 2:
        return _word_cue(cue, " ".join(words))
    compact = norm.replace(" ", "")
    body = re.escape(compact)
    if compact[0].isdigit():
        body = r"(?<![0-9.])" + body
    if compact[-1].isdigit():
        body += r"(?![0-9])"
    return CuePattern(cue, re.compile(body), False, compact)


@dataclass(frozen=True)
class NormalisedText:
    words: str  # identifiers read as words: what word cues are matched against
    compact: str  # no spaces: what symbol cues (`d_model`, `QK^T`) are matched against
    # the words form with camelCase kept whole (`PyTorch` is "pytorch"), when that differs
    joined: str = ""

    @classmethod
    def of(cls, text: str) -> NormalisedText:
        # one normalisation serves both forms: spaces (from a brace or a camelCase seam) are
        # all the words form adds, and the compact form drops them
        seams = _CAMEL.search(text) is not None
        spaced = normalise(_CAMEL.sub(" ", text) if seams else text, braces=" ")
        joined = _words(normalise(text, braces=" ")) if seams else ""
        return cls(_words(spaced), spaced.replace(" ", ""), joined)

    def contains(self, pattern: CuePattern) -> bool:
        if not pattern.spaced:
            return _search(pattern, self.compact)
        return _search(pattern, self.words) or (
            bool(self.joined) and _search(pattern, self.joined))


def _search(pattern: CuePattern, text: str) -> bool:
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
