"""A question label as the words and numbers it is matched on, with a small pattern form.

A label is compared token by token (words and numbers, lower-cased; punctuation, markup and
spacing ignored): "Problem 2(b)" is `problem 2 b` and matches `**PROBLEM 2 (b):**`. Three
pattern signs widen a label, each within one token, so matching stays linear (no regex runs
on the student's text):

- `(Exercise|Ex) 3.2`: any one of the alternatives (up to 8, each one or more words);
- `[Inline] Question 1`: an optional word or words;
- `Learn* positional encoding`: a word that starts with `learn`.

A label with no pattern sign and no word of two letters ("Q1", "1b", "2)") is a short label,
read by the label grammar of `graders.documents.labels`.
"""

from __future__ import annotations

import re

Phrase = tuple[str, ...]  # tokens; a token ending in "*" matches any word it starts

MAX_EXPANSIONS = 64
_TOKEN = re.compile(r"[a-z]+\*?|[0-9]+")  # in a label: a trailing "*" is a sign
_WORDS = re.compile(r"[a-z]+|[0-9]+")  # in a student's line
_GROUP = re.compile(r"\(([^()\[\]]{1,80}\|[^()\[\]]{1,200})\)|\[([^()\[\]]{1,80})\]")
_RUN = re.compile(r"[A-Za-z0-9]+")
_WORD_RUN = re.compile(r"[A-Za-z]{2,}")
_ROMANS = frozenset({"ii", "iii", "iv", "vi", "vii", "viii", "ix"})


class LabelPatternError(ValueError):
    """A label pattern that cannot be read (unbalanced brackets, too many alternatives)."""


def tokens(text: str) -> Phrase:
    """A label's tokens."""
    return tuple(_TOKEN.findall(text[:300].lower()))


def words(line: str, cap: int = 300) -> Phrase:
    """A line's words and numbers: "**Problem 2(b):**" -> ("problem", "2", "b")."""
    return tuple(_WORDS.findall(line[:cap].lower()))


def is_pattern(label: str) -> bool:
    return bool(_GROUP.search(label)) or "*" in label


def expand(label: str) -> list[Phrase]:
    """Every token sequence a label matches (a plain label: one)."""
    choices: list[list[Phrase]] = []
    pos = 0
    for m in _GROUP.finditer(label):
        choices.append([tokens(label[pos:m.start()])])
        if m.group(1) is not None:
            alternatives = m.group(1).split("|")
            if len(alternatives) > 8:
                raise LabelPatternError(f"label {label!r}: more than 8 alternatives")
            choices.append([tokens(a) for a in alternatives])
        else:
            choices.append([tokens(m.group(2)), ()])
        pos = m.end()
    choices.append([tokens(label[pos:])])
    rest = _GROUP.sub("", label)
    if "|" in rest or "[" in rest or "]" in rest:
        raise LabelPatternError(f"label {label!r}: unbalanced ( | ) or [ ]")
    out: list[Phrase] = [()]
    for group in choices:
        out = [a + b for a in out for b in group]
        if len(out) > MAX_EXPANSIONS:
            raise LabelPatternError(f"label {label!r}: more than {MAX_EXPANSIONS} spellings")
    return [p for p in dict.fromkeys(out) if p]


def is_phrase(label: str) -> bool:
    """A label matched on its words: it has a word of two letters or more (not a roman numeral,
    not glued to a number as in "1aii"), or a pattern sign."""
    if is_pattern(label):
        return True
    return any(_WORD_RUN.fullmatch(run) and run.lower() not in _ROMANS
               for run in _RUN.findall(label[:300]))


def starts_with(words: Phrase, phrase: Phrase, at: int = 0) -> bool:
    if len(words) - at < len(phrase):
        return False
    for word, token in zip(words[at:at + len(phrase)], phrase, strict=True):
        if token.endswith("*"):
            if not word.startswith(token[:-1]):
                return False
        elif word != token:
            return False
    return True


__all__ = ["LabelPatternError", "Phrase", "expand", "is_pattern", "is_phrase", "starts_with",
           "tokens", "words"]
