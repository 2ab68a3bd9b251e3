"""What a rubric item of kind `choice` may say."""

from __future__ import annotations

import re
import unicodedata
from decimal import Decimal
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# The grader's version (ChoiceGrader.version): it names the grader's code in every cache key.
# 2: a choice whose text holds a separator stays one selection; 3: a question's parts answered
# in one block ("(a) B (b) A, C") are read part by part; an offered label followed by its
# option's text ("B) sqrt(d)") is that label; 5: Markdown emphasis around a selection
# (`**B**`) is formatting, not the choice; 6: parts marked with a question word and number
# (`Problem 6(b)`, `Exercise 6.b:`), after a first part the locator left as `(a) A`
VERSION = "6"  # 4: the parts of a LaTeX list (`\item[(a)] B`, bare `\item`s)

# Student text is hostile: only a bounded prefix is read, in a bounded number of selections.
MAX_ANSWER = 2000
MAX_SELECTED = 64
MAX_CHOICE = 200

_SPACES = re.compile(r"\s+")
# How a student may list several selections: "A, C", "A; C", "A and C", one per line. Spaces
# around a separator are stripped from the parts, not matched here (no backtracking over them).
_SEPARATORS = re.compile(r"([,;\n|&]|\band\b)")


def normalise(text: str, case_sensitive: bool = False) -> str:
    """One spelling of a short string: Unicode compatibility forms, spaces collapsed, a
    trailing full stop dropped and, unless the item says otherwise, case folded."""
    folded = unicodedata.normalize("NFKC", text[:MAX_ANSWER])
    folded = _SPACES.sub(" ", folded).strip().removesuffix(".").strip()
    return folded if case_sensitive else folded.casefold()


def split_selections(text: str, known: frozenset[str] = frozenset(),
                     case_sensitive: bool = False) -> list[str]:
    """The selections of a several-answers reply, in order, at most `MAX_SELECTED`.

    A choice whose own text holds a separator ("Adam, with warm-up", "keys and values") stays
    one selection: where consecutive pieces joined with the separators between them spell a
    `known` choice (normalised), the longest such run is taken whole."""
    pieces = _SEPARATORS.split(text[:MAX_ANSWER])  # part, separator, part, ... (odd length)
    parts, seps = pieces[0::2], pieces[1::2]
    longest = max((len(k) for k in known), default=0)
    selected: list[str] = []
    i = 0
    while i < len(parts) and len(selected) <= MAX_SELECTED:
        j, run, taken = i, parts[i], i
        while known and j + 1 < len(parts) and len(run) <= longest:
            j += 1
            run = f"{run}{seps[j - 1]}{parts[j]}"
            if normalise(run, case_sensitive) in known:
                taken = j
        whole = "".join(p + s for p, s in zip(parts[i:taken], seps[i:taken], strict=True))
        whole += parts[taken]
        if whole.strip():
            selected.append(whole.strip())
        i = taken + 1
    return selected


def _exact(value: object) -> object:
    return Decimal(str(value)) if isinstance(value, float) else value


class ChoiceConfig(BaseModel):
    """`correct`: the correct choice, or each accepted spelling of an exact-match answer; with
    `select: several`, every choice that must be selected. `choices`: the options offered
    (labels such as "A" or their texts); when given, an answer that is none of them is sent to
    review. `credit`: a share of the points for a choice that is not correct but worth
    something (one selection only). `scoring` (several selections): `all_or_nothing`, or
    `right_minus_wrong` (each correct choice selected earns its share, each wrong one costs a
    share; never below 0). `subpart`: the part of a block answer this item reads."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    correct: tuple[str, ...] = Field(min_length=1, max_length=MAX_SELECTED)
    choices: tuple[str, ...] = Field(default=(), max_length=MAX_SELECTED)
    select: Literal["one", "several"] = "one"
    credit: dict[str, Decimal] = Field(default_factory=dict)
    scoring: Literal["all_or_nothing", "right_minus_wrong"] = "all_or_nothing"
    case_sensitive: bool = False
    # the student's marker of this item's part in a block answering the whole question ("b"
    # for "(b) A, C"); by default the item's place among the question's items
    subpart: str | None = Field(default=None, pattern=r"^(?i:[1-9]|[a-h]|i{1,3}|iv|vi{0,3})$")

    @field_validator("correct", "choices", mode="before")
    @classmethod
    def _listed(cls, value: object) -> object:
        return (value,) if isinstance(value, str) else value

    @field_validator("correct", "choices")
    @classmethod
    def _short(cls, values: tuple[str, ...]) -> tuple[str, ...]:
        for value in values:
            if not value.strip() or len(value) > MAX_CHOICE:
                raise ValueError(f"a choice must be 1 to {MAX_CHOICE} characters, not {value!r}")
        return values

    @field_validator("credit", mode="before")
    @classmethod
    def _exact_credit(cls, value: object) -> object:
        if isinstance(value, dict):
            return {k: _exact(v) for k, v in value.items()}
        return value

    @model_validator(mode="after")
    def _consistent(self) -> ChoiceConfig:
        def spelled(values: tuple[str, ...]) -> list[str]:
            return [normalise(v, self.case_sensitive) for v in values]

        offered = set(spelled(self.choices))
        correct = spelled(self.correct)
        if len(set(correct)) != len(correct):
            raise ValueError("`correct` names one choice twice")
        if offered and not set(correct) <= offered:
            missing = [c for c in self.correct
                       if normalise(c, self.case_sensitive) not in offered]
            raise ValueError(f"`correct` names {missing} that `choices` does not offer")
        for choice, share in self.credit.items():
            if not Decimal(0) <= share <= Decimal(1):
                raise ValueError(f"credit for {choice!r} must be a share between 0 and 1")
            if offered and normalise(choice, self.case_sensitive) not in offered:
                raise ValueError(f"credit names {choice!r}, which `choices` does not offer")
            if normalise(choice, self.case_sensitive) in correct:
                raise ValueError(f"credit names {choice!r}, a correct choice (it earns all)")
        if self.select == "several" and self.credit:
            raise ValueError("`credit` is for one selection; several selections are scored "
                             "by `scoring`")
        if self.select == "one" and self.scoring != "all_or_nothing":
            raise ValueError("`scoring` is for `select: several`")
        return self
