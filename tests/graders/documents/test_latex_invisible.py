"""Class: LaTeX submissions holding text TeX typesets but nobody sees: `\\phantom{...}` (and
`\\hphantom`, `\\vphantom`) draws nothing, `\\textcolor{white}{...}` and `{\\color{white} ...}`
draw white on the white page. Honest students use `\\phantom{-}` to align columns; a hostile
one hides the expected values there behind a visible answer. The reader handed all of it to
grading as answer text; now it is blanked (spaces, offsets kept), while coloured text that
shows (`\\textcolor{red}{...}`), escaped braces and URLs holding `%20` (no comment: the URL is
verbatim, a regression of the comment reader) read as written. The property builds documents
from such pieces and knows what each reads as."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.formats import decode_document
from graders.documents.latex_source import typeset_text
from tests.support.pace import stretched

# visible text: letters, digits, spaces and math, never a backslash, brace or percent sign
_WORDS = st.text(alphabet="abcXYZ0123456789 =$_^.,:;()", min_size=1, max_size=30)
_URL = st.text(alphabet="abcxyz0123456789/.-_%#~?=&", min_size=1, max_size=30)


def _blank(text: str) -> str:
    return "".join("\n" if c == "\n" else " " for c in text)


def _piece() -> st.SearchStrategy[tuple[str, str]]:
    """(source, what it reads as) for one piece of a document."""
    visible = _WORDS.map(lambda w: (w, w))
    group = _WORDS.map(lambda w: (f"{{{w}}}", f"{{{w}}}"))
    escaped = _WORDS.map(lambda w: (f"\\{{{w}\\}}", f"\\{{{w}\\}}"))
    red = _WORDS.map(lambda w: (f"\\textcolor{{red}}{{{w}}}", f"\\textcolor{{red}}{{{w}}}"))
    phantom = st.tuples(st.sampled_from(["phantom", "hphantom", "vphantom"]), _WORDS).map(
        lambda p: (f"\\{p[0]}{{{p[1]}}}", _blank(f"\\{p[0]}{{{p[1]}}}")))
    nested = _WORDS.map(lambda w: (f"\\phantom{{a{{{w}}}b}}", _blank(f"\\phantom{{a{{{w}}}b}}")))
    white = _WORDS.map(lambda w: (f"\\textcolor{{white}}{{{w}}}",
                                  _blank(f"\\textcolor{{white}}{{{w}}}")))
    switched = st.tuples(_WORDS, _WORDS).map(
        lambda p: (f"{{\\color{{white}} {p[0]}}}{p[1]}",
                   "{" + _blank(f"\\color{{white}} {p[0]}") + "}" + p[1]))
    url = _URL.map(lambda u: (f"\\url{{http://x.y/{u}}}", f"\\url{{http://x.y/{u}}}"))
    href = st.tuples(_URL, _WORDS).map(lambda p: (f"\\href{{http://x.y/{p[0]}}}{{{p[1]}}}",
                                                  f"\\href{{http://x.y/{p[0]}}}{{{p[1]}}}"))
    return st.one_of(visible, group, escaped, red, phantom, nested, white, switched, url, href)


@settings(max_examples=300, deadline=None)
@given(st.lists(_piece(), min_size=1, max_size=12))
def test_a_latex_document_reads_as_it_is_seen(pieces: list[tuple[str, str]]) -> None:
    source = "\\section*{A1}\n" + " ".join(p[0] for p in pieces) + "\nend\n"
    expected = "\\section*{A1}\n" + " ".join(p[1] for p in pieces) + "\nend\n"
    decoded = decode_document(source.encode(), "answers.tex", None)
    assert decoded.text == expected
    assert len(decoded.text) == len(source)  # evidence offsets point into the upload


def test_white_ends_with_its_environment_or_the_next_colour() -> None:
    source = "\\begin{center}\\color{white} 64\\end{center} 65 \\color{white} 66 \\color{black} 67"
    assert typeset_text(source) == (
        "\\begin{center}" + " " * 16 + "\\end{center} 65 " + " " * 17 + "\\color{black} 67")


def test_a_line_break_before_a_word_is_no_phantom() -> None:
    assert typeset_text("a \\\\phantom{64} b") == "a \\\\phantom{64} b"


def test_two_megabytes_of_openers_read_in_linear_time() -> None:
    for unit in ("\\phantom{", "\\url{", "{\\color{white}", "\\textcolor{white}{", "}", "\\{"):
        text = unit * (2_000_000 // len(unit))
        began = time.perf_counter()
        assert len(typeset_text(text)) == len(text)
        assert time.perf_counter() - began < stretched(5), unit  # this machine's pace


def test_white_on_a_painted_page_or_box_is_read() -> None:
    for source in ("\\pagecolor{black}\\color{white} d = 64",
                   "\\colorbox{black}{\\textcolor{white}{d = 64}}"):
        assert typeset_text(source) == source
