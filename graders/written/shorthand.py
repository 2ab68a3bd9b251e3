"""Words shortened in typed notes read as the question spells them ("pos info fades w/ depth" is
"position information fades with depth").

Students answer in notes: "lin∘lin = lin", "grads vanish", "pos info fades w/ depth", "attn is
O(n²)". A pattern then misses the word and the sentence encoder reads the stub as other
sub-words, so a right note was graded zero at high confidence (0.9 on "pos info fades w/
depth" for "position information is added once and fades with depth"). The common
shortenings of a field's notes are listed here with the words they stand for; a shortening is
read as its word only where the question uses that word (its prompt and its written items'
texts), and not where it could stand for two of the question's words ("pos": position or
positive; "mult": multiply or multiple). Connectives ("w/", "b/c") are read everywhere. A
statistic written as a function ("var(q·k) = d_k") is its word ("the variance of (q·k)") where
the question uses that word. A word clipped with a full stop ("mixed prec.", "grad. accum.",
"act. recomp.") is the one word of the question it begins ("precision", "accumulation",
"recomputes"), when it begins exactly one (up to that word's endings) and is not itself one of
the question's words; "w.p." is "with probability" everywhere.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from functools import lru_cache

from graders.written.config import WrittenConfig, question_texts
from graders.written.text import Sentence

# A shortening and the words it may stand for (singular; a trailing "s" on the shortening is
# kept on the word: "grads", "seqs").
SHORTENINGS: dict[str, tuple[str, ...]] = {
    "pos": ("position", "positive"), "info": ("information",), "lin": ("linear",),
    "nonlin": ("nonlinear", "nonlinearity"), "grad": ("gradient",), "deriv": ("derivative",),
    "attn": ("attention",), "seq": ("sequence",), "dim": ("dimension",),
    "param": ("parameter",), "params": ("parameters",), "mem": ("memory",),
    "emb": ("embedding",), "embed": ("embedding",), "repr": ("representation",),
    "rep": ("representation",), "diag": ("diagonal",), "prob": ("probability",),
    "vec": ("vector",), "mat": ("matrix",), "tok": ("token",), "len": ("length",),
    "avg": ("average",), "ctx": ("context",), "enc": ("encoding",), "dist": ("distribution",),
    "seqlen": ("sequence length",), "pe": ("positional encoding",),
    "mult": ("multiply", "multiple"),
}
# A statistic written as a function of what it is taken of ("var(q·k) = d_k", "Var[X]",
# "cov(x, y)"): read as its word where the question uses it ("the variance of (q·k) = d_k").
STATISTICS: dict[str, str] = {"var": "variance", "cov": "covariance",
                              "std": "standard deviation", "stdev": "standard deviation"}
_STATISTIC = re.compile(r"(?<![\w.])(var|cov|std|stdev)\s*(?=[(\[])", re.IGNORECASE)
# Connectives written with a slash, read everywhere ("w/o" before "w/").
CONNECTIVES: dict[str, str] = {"w/o": "without", "w/": "with", "b/c": "because",
                               "b/w": "between", "w.p.": "with probability"}

_WORD = re.compile(r"[A-Za-z]+")
_STUB = re.compile(r"(?<![\w/^'’])([A-Za-z]+)(?![\w/'’(])")
_CONNECTIVE = re.compile(r"(?<![\w/.])(w/o|w/|b/c|b/w|w\.p\.)(?![\w/])", re.IGNORECASE)
# A clipped word: four letters or more and a full stop, not inside "e.g." or "U.S.A.".
_CLIP = re.compile(r"(?<![\w.'’])([A-Za-z]{4,20})\.(?![\w.])")
# Letters a clipped word leaves off at least.
_CLIPPED_OFF = 2


def question_vocabulary(configs: Iterable[WrittenConfig], prompt: str = "") -> frozenset[str]:
    """Every word (lower case) of the question's prompt and its written items' texts."""
    return frozenset(w.lower() for t in question_texts(configs, prompt)
                     for w in _WORD.findall(t))


@lru_cache(maxsize=256)
def readings(words: frozenset[str]) -> dict[str, str]:
    """The shortenings that stand for exactly one of `words`' words, and that word."""
    out: dict[str, str] = {}
    for stub, meanings in SHORTENINGS.items():
        if stub in words:
            continue  # the question writes it so itself
        used = [m for m in meanings if _uses(m, words)]
        if len(used) == 1:
            out[stub] = used[0]
            if not stub.endswith("s") and stub + "s" not in SHORTENINGS:
                out[stub + "s"] = _plural(used[0])
    return out


def _plural(word: str) -> str:
    return word[:-1] + "ies" if re.search(r"[^aeiou]y$", word) else word + "s"


def _uses(meaning: str, words: frozenset[str]) -> bool:
    """Whether the question uses `meaning` or a word built on it ("position": "positional")."""
    head = meaning.split()[0]
    head = head[:-1] if head.endswith("y") else head  # "probability": "probabilities"
    return any(w.startswith(head) for w in words)


def _unclipped(clip: str, words: frozenset[str]) -> str | None:
    """The one word of `words` that `clip` begins (its shortest form: "activation" for
    "activations"), or None: `clip` is a word of its own, or begins none or several."""
    low = clip.lower()
    if low in words:
        return None
    begun = sorted((w for w in words if w.startswith(low) and len(w) >= len(low) + _CLIPPED_OFF),
                   key=len)
    if not begun or any(not w.startswith(begun[0]) for w in begun):
        return None
    return begun[0]


def _statistic(written: str, words: frozenset[str]) -> str:
    meaning = STATISTICS[written.strip().lower()]
    return f"{meaning} of " if _uses(meaning, words) else written


def expand(sentences: Sequence[Sentence], words: frozenset[str]) -> list[Sentence]:
    """The sentences with their shortenings read as the question's words (in the text read for
    matching and similarity; what the student wrote is kept for the evidence)."""
    if not words:
        return list(sentences)
    stubs = readings(words)
    out: list[Sentence] = []
    for sentence in sentences:
        norm = _CONNECTIVE.sub(lambda m: CONNECTIVES[m.group(1).lower()], sentence.norm)
        norm = _STUB.sub(lambda m: stubs.get(m.group(1).lower(), m.group(1)), norm)
        norm = _STATISTIC.sub(lambda m: _statistic(m.group(0), words), norm)
        norm = _CLIP.sub(lambda m: _unclipped(m.group(1), words) or m.group(0), norm)
        out.append(sentence if norm == sentence.norm else replace(sentence, norm=norm))
    return out
