"""What a heading's title says: the label it starts with ("(a) Copying", "Q1-2.", "📌 1. Answer",
"Inline Question 2"), or that it is not a question at all.

Two classes of heading in README-style answers name no question: front matter whose section
holds no answers either (environment set-up, requirements, installation, usage, references,
licence) and headings that only frame the answers (a title, "Overview", "Questions", "Table of
contents"). Neither is counted when headings are numbered by their order.
"""

from __future__ import annotations

import re
from typing import Literal

from graders.documents.labels import LETTERS

_TITLE_FORMAT = re.compile(r"(?:\\textbf\{|\\textit\{|\\emph\{|\*\*|__|\*|_|\$|[ \t])+")
_QWORD = (r"(?:inline[ \t]+question|q|question|problem|prob\.?|exercise|ex\.?|task|hw)?"
          r"[ \t]*\.?[ \t]*")
_ROMAN = r"viii|vii|vi|iv|ix|iii|ii|i|v|x"
_T_NUM_NUM = re.compile(_QWORD + r"(\d{1,2})[ \t]*[-.][ \t]*(\d{1,2})(?![\d.]?\d)",
                        re.IGNORECASE)
_T_NUM = re.compile(
    _QWORD + r"(\d{1,2})(?!\d)(?:[ \t]*[.):])?"
    r"(?:[ \t]*(?:\(([a-h])\)|([a-h])(?=[.)\s(]|$))[.)]?)?"
    r"(?:[ \t]*(?:\((" + _ROMAN + r")\)|(" + _ROMAN + r")(?=[.)\s]|$))[.)]?)?"
    r"(?=[\s:.,)}$(]|$)",
    re.IGNORECASE,
)
_T_LETTER = re.compile(
    r"(?:part[ \t]+)?(?:\(([a-h])\)|([a-h])[.)](?=\s|$))"
    r"(?:[ \t]*(?:\((" + _ROMAN + r")\)|(" + _ROMAN + r")[.)](?=\s|$)))?"
)
_T_ROMAN = re.compile(r"(?:\((" + _ROMAN + r")\)|(" + _ROMAN + r")[.)](?=\s|$))")
# "Part B", "Part 2": a part of the exam (blocks.py reads a numbered one as a question where the
# parts hold no numbered questions: `part_labels.py`)
_T_PART = re.compile(r"part[ \t]+([A-Z](?![A-Za-z0-9])|\d{1,2}(?!\d|\.\d|[A-Za-z]))",
                     re.IGNORECASE)
_T_PARTNUM = re.compile(
    r"(?:part[ \t]+)?([A-H])[ \t]?[.\-]?[ \t]?(\d{1,2})(?!\d)(?:[ \t]*[.):])?(?=[\s:.,)}$(]|$)"
)


# front matter: the heading and everything under it are about the project, not an answer
_FRONT_MATTER = re.compile(
    r"(?:environment|set[ -]?up\b|setup\b|install|requirements?\b|prerequisites?\b|"
    r"dependencies\b|getting started|quick[ -]?start|usage\b|how to (?:run|use|install|"
    r"reproduce)|running\b|reproduc|references?\b|bibliography|acknowledge?ments?|licen[cs]e|"
    r"authors?\b|credits\b|citation|contact\b|contributing)",
    re.IGNORECASE,
)
# a frame around the answers: not a question, but what follows it may be one
_FRAME = re.compile(
    r"(?:table of contents|contents|overview|introduction|summary|abstract|background|"
    r"(?:questions?|answers?|solutions?|exercises?|problems?|tasks?)[ \t]*:?[ \t]*$)",
    re.IGNORECASE,
)
# the document's own title, the homework and its number ("HW 4 — Quinn", "HW4 (Kai)", "Homework
# 4", "Assignment 3: attention"): that number is the assignment's, not a question's. A number
# with a sub-part ("HW 1.2", "HW 4a", "HW 4 (b)") still names a question.
_HOMEWORK = re.compile(
    r"(?:hw|homework|assignment|problem[ \t]+set|pset)[ \t]*#?[ \t]*\d{1,2}"
    r"(?![ \t]*[-.][ \t]*\d)(?![ \t]*\(?[a-h]\b)(?![\da-z])",
    re.IGNORECASE,
)
_LEADING_SYMBOLS = 12  # emoji and pictographs before a title ("📌 1. Answer", "🛠️ Methods")

HeadingKind = Literal["front", "frame", ""]


def clean_title(title: str) -> str:
    """The title without formatting and without leading emoji or pictographs."""
    title = _TITLE_FORMAT.sub(" ", title[:80]).strip()
    i = 0
    while (i < min(len(title), _LEADING_SYMBOLS) and not title[i].isalnum()
           and (not title[i].isascii() or title[i].isspace())):
        i += 1
    return _TITLE_FORMAT.sub(" ", title[i:]).strip() if i else title


def heading_kind(title: str) -> HeadingKind:
    """"front" for front matter, "frame" for a heading that frames the answers, else ""."""
    cleaned = clean_title(title)
    if _HOMEWORK.match(cleaned):
        return "frame"
    if _FRONT_MATTER.match(cleaned):
        return "front"
    if _FRAME.match(cleaned):
        return "frame"
    return ""


def title_label(title: str) -> dict[str, object]:
    """The label a heading's title starts with ("(a) Copying", "Q1-2.", "1.b.ii", "Part B")."""
    title = clean_title(title)
    if _HOMEWORK.match(title):
        return {}
    m = _T_PARTNUM.match(title)
    if m:
        return {"part": m.group(1), "num": int(m.group(2))}
    m = _T_PART.match(title)
    if m:
        return {"part": m.group(1).upper()}
    m = _T_NUM_NUM.match(title)
    if m:
        index = int(m.group(2))
        fields: dict[str, object] = {"num": int(m.group(1))}
        if 1 <= index <= len(LETTERS):
            fields["letter"] = LETTERS[index - 1]
        return fields
    m = _T_NUM.match(title)
    if m and (m.group(0)[:1].isdigit() is False or re.match(r"\d{1,2}(?:[ \t]*[.):]|$|"
                                                            r"[ \t]*\(?[a-h]\b)", title)):
        fields = {"num": int(m.group(1))}
        letter = (m.group(2) or m.group(3) or "").lower()
        roman = (m.group(4) or m.group(5) or "").lower()
        if letter:
            fields["letter"] = letter
        if roman:
            fields["roman"] = roman
        return fields
    m = _T_LETTER.match(title)
    if m:
        fields = {"letter": m.group(1) or m.group(2)}
        roman = m.group(3) or m.group(4)
        if roman:
            fields["roman"] = roman
        return fields
    m = _T_ROMAN.match(title)
    if m:
        return {"roman": m.group(1) or m.group(2)}
    return {}


