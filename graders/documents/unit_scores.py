"""How well each unit of a document answers each question: its label, the rubric's cue terms
(weighted by how few questions share them) and whether it looks like the kind of answer the
question asks for (`graders.documents.locate` cuts the units and assigns them).
"""

from __future__ import annotations

import re

from graders.documents.assign import CONTENT_CAP, EXACT, FOREIGN, MISMATCH, Path, Unit
from graders.documents.cues import CuePattern, NormalisedText, compile_cues
from graders.documents.handout import prompt_words
from graders.documents.labels import LabelMark
from graders.documents.paths import path_match, question_keys
from graders.documents.phrases import PhraseMark
from graders.rubric_model import Question, Rubric

# a sub-part's marker among an item's cues (`cues: ["(a)", attention]`, as rubrics.md asks for
# sub-parts answered in one block) picks the item's value inside its answer; every question with
# sub-parts has one, so it says nothing of which question a passage answers
_SUBPART_MARKER = re.compile(r"\(?(?:[a-h]|[ivx]{1,4}|\d{1,2})[).]?")


def question_cues(question: Question) -> list[str]:
    cues = list(question.cues)
    for item in question.items:
        extra = item.config.get("cues")
        if isinstance(extra, list):
            cues.extend(str(c) for c in extra
                        if _SUBPART_MARKER.fullmatch(str(c).strip()) is None)
    return cues


_CODE_SIGNS = re.compile(
    r"^[ \t]{0,40}(?:def |import |from \w{1,40} import|return\b|for \w{1,40} in |"
    r"if [^\n]{0,200}:[ \t]*$|```)"
    # bounded and anchored at a word start: `\w+\s*=` from every position of a long word is
    # quadratic in its length
    r"|np\.\w{1,40}\(|\b\w{1,40}[ \t]{0,4}=[ \t]{0,4}\w{1,40}\(",
    re.MULTILINE,
)


SCORE_CHARS = 8000
ONLY_HANDOUT = "only the question's own wording"
# every code sign contains one of these; most prose passages have none
_MAYBE_CODE = re.compile(r"=|def |import |return|```|np\.|for \w")


def _kind_score(question: Question, text: str, code_signs: int) -> float:
    if question.answer_kind == "code":
        return 1.0 if code_signs >= 1 else -1.5
    if question.answer_kind == "numeric" and not re.search(r"\d", text):
        return -0.5
    if question.answer_kind == "prose" and code_signs >= 3:
        return -1.0
    return 0.0


class UnitScorer:
    def __init__(self, rubric: Rubric) -> None:
        self.questions = rubric.questions
        self.keys = [question_keys(q) for q in self.questions]
        self.cues = [compile_cues(question_cues(q)) for q in self.questions]
        # the question numbers the rubric has, per part: a label outside them is foreign
        self.numbers = {(k[0], k[1]) for keys in self.keys for k in keys}
        # the rubric's numbered questions counted across its parts (A1..A6 then B1..B4 are 1..10):
        # a student who numbers part B on from part A ("Problem 7") means the 7th
        self.running: list[tuple[str | None, int]] = []
        for qi, keys in enumerate(self.keys):
            if keys and keys[0][1] is not None:
                key = (keys[0][0] or self.questions[qi].part or None, keys[0][1])
                if key not in self.running:
                    self.running.append(key)
        counts: dict[str, int] = {}
        for patterns in self.cues:
            for p in patterns:
                counts[p.regex.pattern] = counts.get(p.regex.pattern, 0) + 1
        self.idf = counts
        # the deepest level the questions have (1 numbers, 2 letters, 3 romans); unknown: 3
        self.depth = max((3 if k[3] else 2 if k[2] else 1 for keys in self.keys for k in keys),
                         default=3)

    def content(self, q: int, norm: NormalisedText) -> tuple[float, list[str]]:
        found: list[CuePattern] = [p for p in self.cues[q] if norm.contains(p)]
        score = sum(1.0 / self.idf[p.regex.pattern] for p in found)
        return min(CONTENT_CAP, score), [p.cue for p in found]

    def score(self, units: list[Unit], text: str) -> None:
        for unit in units:
            # what a passage is about shows in its first pages: a capped read keeps a huge
            # unlabelled tail (hostile or not) from costing a scan per question
            body = text[unit.start:min(unit.end, unit.start + SCORE_CHARS)]
            norm = NormalisedText.of(body)
            code_signs = len(_CODE_SIGNS.findall(body)) if _MAYBE_CODE.search(body) else 0
            for qi, question in enumerate(self.questions):
                label = 0.0
                if unit.mark is not None and unit.mark.question is not None:
                    label = EXACT if unit.mark.question == qi else 0.0
                elif unit.path is not None and unit.mark is not None and not unit.mark.heading:
                    label = path_match(self.renumbered(unit.path), self.keys[qi],
                                       question.part)
                unit.label_scores.append(label)
                unit.content.append(self.content(qi, norm))
                unit.kind.append(_kind_score(question, body, code_signs))
            if not unit.labelled:
                continue
            if max(unit.label_scores) > 0:
                unit.label_scores = [
                    s * unit.reliability if s > 0 else MISMATCH * unit.reliability
                    for s in unit.label_scores
                ]
            elif unit.path is not None and self.foreign(self.renumbered(unit.path)):
                unit.label_scores = [FOREIGN * unit.reliability] * len(self.questions)

    def as_label(self, mark: PhraseMark) -> LabelMark:
        """A phrase label as an outline label at the question's own path."""
        keys = self.keys[mark.question]
        part, num, letter, roman = keys[0] if keys else (None, None, None, None)
        level = 3 if roman else 2 if letter else 1
        # a phrase label is the document's outline (numbers in its answer are points of the
        # answer); a repeated prompt is read like any label written in the text
        structural = not mark.by_prompt or mark.raw.startswith("#")
        return LabelMark(start=mark.start, end=mark.end, raw=mark.raw, part=part, num=num,
                         letter=letter, roman=roman, structural=structural, level=level,
                         question=mark.question, prompted=mark.by_prompt)

    def handout_words(self, path: Path) -> frozenset[str]:
        """The prompt words of the questions a label path names (for spotting pasted text)."""
        words: frozenset[str] = frozenset()
        for qi, question in enumerate(self.questions):
            if question.prompt and path_match(path, self.keys[qi], question.part) > 0:
                words |= prompt_words(question.prompt)
        return words

    def renumbered(self, path: Path) -> Path:
        """A number no part has, read as a running number across the parts (7 -> B1)."""
        part, num = path[0], path[1]
        if (part is None and num is not None and self.foreign(path)
                and len({p for p, _ in self.running}) > 1 and num <= len(self.running)):
            new_part, new_num = self.running[num - 1]
            return (new_part, new_num, path[2], path[3])
        return path

    def foreign(self, path: Path) -> bool:
        """A label whose question number no question of the rubric has."""
        part, num = path[0], path[1]
        if num is None or not self.numbers:
            return False
        return not any(n == num and (p is None or part is None or p == part)
                       for p, n in self.numbers)
