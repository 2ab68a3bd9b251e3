"""Technical terms students use for one another in short answers about neural networks.

A small curated lexicon, not a thesaurus: each line is one class of interchangeable terms
("learned", "trained", "trainable", "learnable" say the same of a parameter; "derivative",
"gradient" and "slope" of an activation). The phrasing matcher (`graders.written.meaning`)
counts a word of the class as any other when it measures how many of a phrasing's words a
clause uses. Words are matched by stem (`graders.written.antonyms.stem_key`), so inflections
count ("trains", "training").
"""

from __future__ import annotations

from functools import lru_cache

from graders.written.antonyms import stem_key

_CLASSES = """
learned trained trainable learnable
derivative gradient slope
probability likelihood probable likely likeliest
separate split divide partition
hyperplane line boundary
position location index
sequence sentence
token word
fixed constant predefined predetermined deterministic
parallel simultaneous simultaneously concurrently
shrink vanish decay diminish
extrapolate generalize generalise
multiply product
combine merge
look search seek
pick choose chose chosen select take took
attend attention
large big high
largest biggest highest best top argmax
total overall joint cumulative
backtrack reconsider revisit revise undo
"""


def _table() -> dict[str, str]:
    table: dict[str, str] = {}
    for line in _CLASSES.strip().splitlines():
        keys = [stem_key(w) for w in line.split()]
        for key in keys:
            table.setdefault(key, keys[0])
    return table


_TERMS = _table()


@lru_cache(maxsize=100_000)
def term(key: str) -> str:
    """The class a word's stem belongs to (its first member's stem), or the stem itself."""
    return _TERMS.get(key, key)
