"""Property-based location: the classes of structure students write, generated, located right.

A document is a tree (questions 1 and 2; parts a, b, c; sub-parts i, ii under b) rendered in
one of the styles of real solution sets - LaTeX sectioning, exam-class \\question/\\part/\\subpart,
enumerate items, Markdown headings, Typst headings, plain-text labels - with labels explicit or
left to the outline's order, and with the handout's question pasted before some answers (with
its points, or followed by an answer marker). Every answer must be found whole, never mixed with
another, and the handout's words never read as an answer.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from graders.documents.locate import locate
from graders.rubric import parse_rubric

_RUBRIC_YAML = """
slug: structure-props
title: Generated structure
questions:
""" + "".join(
    f"""  - id: {qid}
    part: "{qid[0]}"
    items:
      - {{id: {qid}, points: 1, grader: written, config: {{reference: [x]}}}}
"""
    for qid in ("1a", "1b.i", "1b.ii", "1c", "2a", "2b.i", "2b.ii")
)
RUBRIC = parse_rubric(_RUBRIC_YAML).rubric
LEAVES = [q.id for q in RUBRIC.questions]
# words that no label grammar reads as a label, one per answer
WORDS = {qid: f"zeta{'xyzwvuts'[n]}ward" for n, qid in enumerate(LEAVES)}
HANDOUT = "HANDOUTTEXT"
ROMAN = ("i", "ii")


@dataclass(frozen=True)
class Leaf:
    qid: str
    num: int
    letter: str
    roman: str | None


def _leaves() -> list[Leaf]:
    out = []
    for qid in LEAVES:
        num, rest = int(qid[0]), qid[1:]
        letter, _, roman = rest.partition(".")
        out.append(Leaf(qid, num, letter, roman or None))
    return out


def _answer(leaf: Leaf, sentences: int) -> str:
    body = " ".join(f"The {WORDS[leaf.qid]} idea holds here, step {n}." for n in range(sentences))
    return body


def _handout(style: int, points: int) -> str:
    if style == 1:
        return f"({points} points) Describe what you expect the output to be. {HANDOUT}."
    if style == 2:
        return f"Suppose you sample the keys again. What do you expect? {HANDOUT}"
    return ""


@st.composite
def documents(draw: st.DrawFn) -> tuple[str, str]:
    style = draw(st.sampled_from(
        ["latex", "latex-enum", "exam", "markdown", "typst", "plain", "plain-compact"]))
    labelled_titles = draw(st.booleans())
    handout_style = draw(st.sampled_from([0, 1, 2]))
    marker = draw(st.sampled_from(["", "Answer:", "**My answer:**", "\\textbf{Solution:}"]))
    sentences = draw(st.integers(min_value=1, max_value=3))
    # emphasis around a plain-text label: "**(a)**", "\\textbf{1b.ii)}", "__Q1__"
    wrap = draw(st.sampled_from(["{}", "**{}**", "\\textbf{{{}}}", "__{}__", "*{}*"]))
    blank = "\n\n"
    parts: list[str] = []
    if style == "typst":
        parts.append("#set page(width: auto)")
    current: tuple[int, str] | None = None
    number_seen: set[int] = set()
    for leaf in _leaves():
        pasted = _handout(handout_style, 2)
        answer = _answer(leaf, sentences)
        if pasted and marker and style != "plain-compact":
            answer = f"{pasted}{blank}{marker} {answer}"
        elif pasted and style != "plain-compact":
            answer = f"{pasted}{blank}{answer}"
        new_number = leaf.num not in number_seen
        number_seen.add(leaf.num)
        new_letter = current != (leaf.num, leaf.letter)
        current = (leaf.num, leaf.letter)
        parts.extend(_render(style, leaf, new_number, new_letter, labelled_titles, answer, wrap))
    return style, blank.join(parts) + "\n"


def _render(style: str, leaf: Leaf, new_number: bool, new_letter: bool, titled: bool,
            answer: str, wrap: str) -> list[str]:
    num, letter, roman = leaf.num, leaf.letter, leaf.roman
    out: list[str] = []
    if style in ("latex", "latex-enum"):
        if new_number:
            out.append(f"\\section{{{f'Question {num}' if titled else 'Attention topic'}}}")
        if new_letter:
            out.append(f"\\subsection{{{f'({letter}) Part' if titled else 'Some part'}}}")
        if roman is not None:
            if style == "latex-enum":
                if roman == "i":
                    out.append("\\begin{enumerate}[label=(\\roman*)]")
                out.append(f"\\item {answer}")
                if roman == ROMAN[-1]:
                    out.append("\\end{enumerate}")
                return out
            out.append("\\subsubsection{}")
        out.append(answer)
    elif style == "exam":
        if new_number:
            out.append(f"\\titledquestion{{Topic {num}}}[10]" if titled else "\\question")
        if new_letter:
            out.append("\\part[2]")
        if roman is not None:
            out.append("\\subpart[1]")
        out.append(answer)
    elif style in ("markdown", "typst"):
        mark = "#" if style == "markdown" else "="
        if new_number:
            out.append(f"{mark * 2} {f'Q{num}.' if titled else 'A topic'}")
        if new_letter:
            title = f"({letter}) Part" if titled else "A part"
            out.append(f"{mark * 3} {title}")
        if roman is not None and style == "typst" and wrap == "{}":
            out.append(f"+ {answer}")  # Typst's numbered list
        elif roman is not None:
            out.append(f"{roman}. {answer}")
        else:
            out.append(answer)
    elif style == "plain":
        head = []
        if new_number:
            out.append(wrap.format(f"Problem {num}"))
        if new_letter:
            head.append(wrap.format(f"({letter})"))
        if roman is not None:
            head.append(wrap.format(f"{roman}."))
        out.append(" ".join([*head, answer]))
    else:  # plain-compact: "1b.ii) answer"
        label = f"{num}{letter}" + (f".{roman}" if roman else "")
        out.append(f"{wrap.format(label + ')')} {answer}")
    return out


@settings(max_examples=1000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_every_generated_answer_is_located_whole_and_alone(doc: tuple[str, str]) -> None:
    style, text = doc
    location = locate(text, RUBRIC)
    for qid in LEAVES:
        assert qid in location.answers, (style, qid, location.missing.get(qid), text)
        found = location.answers[qid].text
        assert WORDS[qid] in found, (style, qid, found, text)
        others = [w for q, w in WORDS.items() if q != qid and w in found]
        assert not others, (style, qid, others, found)
        assert HANDOUT not in found, (style, qid, found)


@settings(max_examples=300, deadline=None)
@given(documents(), st.sampled_from(LEAVES))
def test_a_part_left_out_is_missing_not_taken_from_a_neighbour(
    doc: tuple[str, str], dropped: str
) -> None:
    style, text = doc
    # remove the dropped answer's sentences: its label may stay, with nothing (or the handout)
    gone = text.replace(f"The {WORDS[dropped]} idea holds here", "Nothing")
    location = locate(gone, RUBRIC)
    for qid in LEAVES:
        answer = location.answers.get(qid)
        if qid != dropped:
            assert answer is not None and WORDS[qid] in answer.text, (style, qid, gone)
        elif answer is not None:
            # what is left under its label ("Nothing, step 0.") may be graded, never a neighbour
            assert not any(w in answer.text for w in WORDS.values()), (style, answer.text)
