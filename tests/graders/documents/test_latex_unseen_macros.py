"""Class: LaTeX submissions holding text TeX reads but never shows, by means beyond comments,
`\\iffalse`, `\\phantom` and `white` (test_latex_comments.py, test_latex_invisible.py): text
after `\\end{document}` (TeX stops there); white given in a colour model
(`\\textcolor[rgb]{1,1,1}{...}`, `[HTML]{FFFFFF}`, `\\color[gray]{1}`), as an xcolor mix
(`white!40`, `black!0`) or under a name the document defines white (`\\definecolor{bg}{rgb}
{1,1,1}`, `\\colorlet{bg}{white}`); a box scaled to nothing (`\\scalebox{0}{...}`,
`\\resizebox{0pt}{!}{...}`); the argument of a macro whose body never uses it
(`\\newcommand{\\hide}[1]{}`, `\\def\\hide#1{}`); and the branch of a conditional that what is
written decides against (`\\if01 ...\\fi`, `\\ifnum 0=1`, a `\\newif` switch never set true,
the `\\else` of `\\iftrue`). A hostile student hides the expected values there behind a visible
answer. The reader handed all of it to grading; now it is blanked (spaces, offsets kept), while
colours, scales, macros and conditionals that show their text read as written. The property
builds documents from such pieces and knows what each reads as."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.formats import decode_document
from graders.documents.latex_source import typeset_text

# visible text: letters, digits, spaces and math, never a backslash, brace or percent sign
_WORDS = st.text(alphabet="abcXYZ0123456789 =$_^.,:;()", min_size=1, max_size=30)
_PREAMBLE = ("\\definecolor{paper}{rgb}{1,1,1}\\colorlet{ghost}{white!60}"
             "\\definecolor{ink}{rgb}{0.2,0.2,0.2}\\newcommand{\\hide}[1]{}"
             "\\def\\drop#1{\\relax}\\newcommand\\shown[1]{\\textbf{#1}}"
             "\\newcommand{\\second}[2]{#2}\\newif\\ifshow\\newif\\ifdraft\\drafttrue\n")


def _blank(text: str) -> str:
    return "".join("\n" if c == "\n" else " " for c in text)


_HIDING = ("\\textcolor[rgb]{1,1,1}{%s}", "\\textcolor[RGB]{255, 255, 255}{%s}",
           "\\textcolor[HTML]{ffffff}{%s}", "{\\color[gray]{1} %s}", "\\textcolor{paper}{%s}",
           "\\textcolor{ghost}{%s}", "\\textcolor{black!0}{%s}", "\\textcolor[cmyk]{0,0,0,0}{%s}",
           "\\scalebox{0}{%s}", "\\scalebox{0.0}[1]{%s}", "\\resizebox{0pt}{!}{%s}",
           "\\resizebox*{!}{0cm}{%s}", "\\hide{%s}", "\\drop{%s}", "\\if01 %s\\fi",
           "\\ifnum 0=1 %s\\fi", "\\ifnum2<1 %s\\fi", "\\ifshow %s\\fi")
_SHOWING = ("\\ifdraft %s\\fi", "\\ifx\\a\\b %s\\fi", "\\ifnum 1<2 %s\\fi", "\\if00%s\\fi",
            "\\textcolor[rgb]{1,0,0}{%s}", "\\textcolor{ink}{%s}",
            "\\textcolor{white!50!black}{%s}",
            "\\scalebox{0.5}{%s}", "\\resizebox{0.5\\textwidth}{!}{%s}", "\\shown{%s}",
            "{%s}")


def _hidden(form: str, words: str) -> tuple[str, str]:
    source = form % words
    if form.startswith("{"):  # the group's braces stay
        return source, "{" + _blank(source[1:-1]) + "}"
    return source, _blank(source)


def _piece() -> st.SearchStrategy[tuple[str, str]]:
    """(source, what it reads as) for one piece of a document."""
    visible = _WORDS.map(lambda w: (w, w))
    showing = st.tuples(st.sampled_from(_SHOWING), _WORDS).map(lambda p: (p[0] % p[1],) * 2)
    hiding = st.tuples(st.sampled_from(_HIDING), _WORDS).map(lambda p: _hidden(*p))
    second = st.tuples(_WORDS, _WORDS).map(  # its first argument unseen, its second shown
        lambda p: (f"\\second{{{p[0]}}}{{{p[1]}}}", _blank(f"\\second{{{p[0]}}}") + f"{{{p[1]}}}"))
    # a decided conditional shows one branch: `\\iftrue` the first, `\\iffalse` the other
    branches = st.tuples(st.booleans(), _WORDS, _WORDS).map(lambda p: (
        f"\\if{str(p[0]).lower()} {p[1]} \\else {p[2]} \\fi",
        f"\\iftrue {p[1]} " + _blank(f"\\else {p[2]} \\fi") if p[0]
        else _blank(f"\\iffalse {p[1]} \\else") + f" {p[2]} \\fi"))
    return st.one_of(visible, showing, hiding, second, branches)


@settings(max_examples=300, deadline=None)
@given(st.lists(_piece(), min_size=1, max_size=12), _WORDS)
def test_a_latex_document_reads_as_it_is_seen(pieces: list[tuple[str, str]], after: str) -> None:
    body = "\\section*{A1}\n" + " ".join(p[0] for p in pieces) + "\n"
    expected = "\\section*{A1}\n" + " ".join(p[1] for p in pieces) + "\n"
    end = "\\end{document}"
    source = _PREAMBLE + "\\begin{document}\n" + body + end + "\n" + after
    decoded = decode_document(source.encode(), "answers.tex", None)
    assert decoded.text == _PREAMBLE + "\\begin{document}\n" + expected + end + _blank("\n" + after)
    assert len(decoded.text) == len(source)  # evidence offsets point into the upload


@pytest.mark.parametrize("source", [
    "\\begin{verbatim}\n\\end{document}\n\\end{verbatim}\nd = 64",
    "% \\end{document}\nd = 64",
    "\\newcommand{\\hide}[1]{#1}\\hide{d = 64}",
    "\\pagecolor{black}\\textcolor[rgb]{1,1,1}{d = 64}",
])
def test_what_shows_is_read(source: str) -> None:
    assert "d = 64" in typeset_text(source)


@pytest.mark.parametrize("unit", ["\\iftrue ", "\\iftrue\\else ", "\\if01", "\\ifnum1=1 ",
                                  "\\newif\\ifa\\ifa ", "\\newcommand{\\h}[1]{", "\\def\\h#1{",
                                  "\\scalebox{0}{",
                                  "\\resizebox{0pt}{0pt}{", "\\textcolor[rgb]{1,1,1}{",
                                  "\\definecolor{a}{rgb}{1,1,1}", "\\colorlet{a}{white!0!white}",
                                  "\\end{document}", "\\newcommand{\\h}[1]{}\\h{"])
def test_two_megabytes_of_one_unit_read_in_linear_time(unit: str) -> None:
    source = unit * (2_000_000 // len(unit))
    began = time.process_time()
    typeset_text(source)
    assert time.process_time() - began < 10
