"""Credit for what the compiled pages never show, by means the comment and `white` readers did
not know (test_hidden_latex.py, test_hidden_latex_invisible.py): B1 reading "See the table." with
its three values after `\\end{document}`, in white given as a colour model
(`\\textcolor[rgb]{1,1,1}`, `[HTML]{FFFFFF}`, `\\color[gray]{1}`), an xcolor mix
(`white!100`), a colour the document defines white, a box scaled to nothing (`\\scalebox{0}`,
`\\resizebox{0pt}{0pt}`), the argument of a macro that drops it (`\\newcommand{\\hide}[1]{}`,
`\\def\\hide#1{}`), or a conditional's branch TeX skips (`\\if01`, `\\ifnum 0=1`, a `\\newif`
switch never set true, the `\\else` of `\\iftrue`) was `graded` 10 of 10 with no review. Now the
reader blanks each (graders/documents/latex_source.py, latex_hidden.py): B1 is `missing`; the
values under a colour, a scale, a macro or a branch that shows them are still 10 of 10."""

from __future__ import annotations

import pytest

from tests.app.conftest import Api
from tests.attacks.hidden_b1 import Items, assert_credited, assert_unread, b1_items
from tests.attacks.test_hidden_latex import DOCUMENT, VALUES

# what the preamble defines, as a student defines it before the answers
PREAMBLE = ("\\documentclass{article}\n\\usepackage{xcolor,graphicx}\n"
            "\\definecolor{paper}{rgb}{1,1,1}\n\\newcommand{\\hide}[1]{}\n\\def\\drop#1{}\n"
            "\\newcommand{\\ans}[1]{\\textbf{#1}}\n\\newif\\ifshow\n\\begin{document}\n")


def _b1(target: Api, who: str, answer: str) -> Items:
    document = PREAMBLE + DOCUMENT % answer
    return b1_items(target, who, "answers.tex", document.encode(), "application/x-tex")


HIDDEN = {
    "after the end of the document": "See the table.\n\\end{document}\n" + VALUES,
    "a second end of the document": "See the table.\n\\end{document}\n" + VALUES
                                    + "\n\\end{document}",
    "white in the rgb model": "See the table. \\textcolor[rgb]{1,1,1}{" + VALUES + "}",
    "white in HTML": "See the table. \\textcolor[HTML]{FFFFFF}{" + VALUES + "}",
    "white in gray": "See the table. {\\color[gray]{1} " + VALUES + "}",
    "an xcolor mix of white": "See the table. \\textcolor{white!100}{" + VALUES + "}",
    "a colour defined white": "See the table. \\textcolor{paper}{" + VALUES + "}",
    "a box scaled to nothing": "See the table. \\scalebox{0}{" + VALUES + "}",
    "a box resized to nothing": "See the table. \\resizebox{0pt}{0pt}{" + VALUES + "}",
    "a newcommand that drops its argument": "See the table. \\hide{" + VALUES + "}",
    "a def that drops its argument": "See the table. \\drop{" + VALUES + "}",
    "an if of two characters": "See the table. \\if01 " + VALUES + "\\fi",
    "an ifnum of two numbers": "See the table. \\ifnum 0=1 " + VALUES + "\\fi",
    "a newif switch never set": "See the table. \\ifshow " + VALUES + "\\fi",
    "the else of an iftrue": "\\iftrue See the table. \\else " + VALUES + "\\fi",
}
SHOWN = {
    "red in the rgb model": "\\textcolor[rgb]{1,0,0}{" + VALUES + "}",
    "a box at half size": "\\scalebox{0.5}{" + VALUES + "}",
    "a macro that shows its argument": "\\ans{" + VALUES + "}",
    "the first branch of an iftrue": "\\iftrue " + VALUES + " \\else See the table.\\fi",
}


@pytest.mark.parametrize("name", sorted(HIDDEN))
def test_values_the_page_never_shows_earn_nothing(target: Api, name: str) -> None:
    items = _b1(target, "alice", HIDDEN[name])
    assert_unread(items)


@pytest.mark.parametrize("name", sorted(SHOWN))
def test_the_same_values_shown_are_credited(target: Api, name: str) -> None:
    items = _b1(target, "bob", SHOWN[name])
    assert_credited(items, graded=True)
