"""What the reader of values finds in an answer: each value with its span, its statement and the
words that label it (`Candidate`), and all of them with the answer's statements
(`Extraction`)."""

from __future__ import annotations

from dataclasses import dataclass

from graders.numeric.arith import Number
from graders.numeric.statements import Span as Statement

Value = Number | tuple[Number, ...]


@dataclass(frozen=True)
class Candidate:
    value: Value
    source: str  # what the student wrote for it
    start: int  # span in the answer text
    end: int
    statement: int  # index into the statements of the answer
    boxed: bool = False
    final: bool = False  # the last value of its statement (right-hand side of the last `=`)
    expression: bool = False  # an arithmetic expression the student did not evaluate
    percent: bool = False
    words: bool = False
    # the words that label it: the text since the previous value of its statement, or, for a
    # value that continues a chain (`768/12 = 64`), the label of the chain
    label: str = ""
    trailing: str = ""  # the words right after it, up to the next clause (`589,824 per matrix`)
    chained: bool = False
    # working, not a result: the chain goes on to another value (`768/12` in `768/12 = 64`)
    working: bool = False
    listed: bool = False  # a vector read from a bare list of values
    # the value before it restated rounded (`30.75 ≈ 31`): working, unless the item asks for a
    # whole number and only this one is (graders.numeric.select)
    restates: bool = False

    @property
    def is_vector(self) -> bool:
        return isinstance(self.value, tuple)


@dataclass(frozen=True)
class Extraction:
    text: str
    statements: tuple[Statement, ...]
    candidates: tuple[Candidate, ...]

    def statement_text(self, index: int) -> str:
        if 0 <= index < len(self.statements):
            s = self.statements[index]
            return self.text[s.start:s.end]
        return ""
