"""Whether an answer is written in a language the written grader cannot read (not English).

Patterns and the embedding model read English; an answer in another language would get a
confident 0 for want of matching words. The check is cheap and conservative: mostly letters
outside the Latin alphabet, or a text whose small words are another language's function words
and hardly ever English ones.
"""

from __future__ import annotations

import re
from functools import lru_cache

from graders.written.lexical import STOP_WORDS

_READ = 4000  # characters read: enough to tell a language, bounded on hostile input
_WORD = re.compile(r"[^\W\d_]+")
_MIN_LETTERS = 20
_MIN_WORDS = 8
# Function words of common languages other than English (none is an English word).
# Function words of French, German, Spanish and Italian that are not also English words ("come",
# "die", "per", "con" are: "the tokens come from one vector" is English).
_FOREIGN = frozenset(_WORD.findall("""le la les des est une du et sont avec pour dans qui
    sur pas der das und ist nicht ein eine mit sich auf dem den zu wird el los las una es
    por para del que como pero más il di che della sono gli non è anche"""))


@lru_cache(maxsize=20_000)
def foreign_language(text: str) -> bool:
    text = text[:_READ]
    letters = [c for c in text if c.isalpha()]
    if len(letters) < _MIN_LETTERS:
        return False
    if sum(1 for c in letters if c > "\u024f") / len(letters) > 0.3:
        return True  # mostly outside the Latin alphabets (CJK, Cyrillic, Greek, Arabic, ...)
    words = [w.lower() for w in _WORD.findall(text)]
    if len(words) < _MIN_WORDS:
        return False
    foreign = sum(1 for w in words if w in _FOREIGN)
    english = sum(1 for w in words if w in STOP_WORDS)
    return foreign >= 0.15 * len(words) and english < foreign / 2
