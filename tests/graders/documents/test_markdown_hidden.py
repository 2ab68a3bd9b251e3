"""Class: Markdown submissions (and notebooks' Markdown cells) holding HTML elements the page
renders hidden: the `hidden` attribute, `style="display: none"`, `visibility: hidden`, white
text. A TA reading the page sees nothing of them; the reader handed them to grading as answer
text (a hostile student's hidden values). Now such an element is blanked, tags and all
(spaces, newlines kept: offsets point into the upload), while elements shown (`<details>`, a
`<span>` in a colour that shows, `class="hidden"`, which styles nothing by itself), the same
markup in code, and a `<` in text or math read as written. The property builds documents
from such pieces and knows what each reads as."""

from __future__ import annotations

import time

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.formats import decode_document
from graders.documents.markdown_source import rendered_text
from tests.support.pace import stretched

# visible text: never a tag, backtick, fence or indentation of its own
_WORDS = st.text(alphabet="abcXYZ0123456789 =$_^.,:;()*", min_size=1, max_size=30).map(
    lambda w: w.strip() or "x")
_HIDING = st.sampled_from(['<span hidden>', '<div hidden="">', '<p style="display:none">',
                           "<span style='visibility: hidden'>",
                           '<span style="color: #FFFFFF">', '<font style="color:white;">'])


def _blank(text: str) -> str:
    return "".join("\n" if c == "\n" else " " for c in text)


def _closed(tag: str, body: str) -> str:
    return f"{tag}{body}</{tag[1:].split()[0].rstrip('>')}>"


def _unattributed(tag: str) -> str:
    """A start tag as the page shows it: its attributes are no text (the name is kept)."""
    name = tag[1:].split()[0].rstrip(">")
    return tag[:len(name) + 1] + _blank(tag[len(name) + 1:-1]) + ">"


def _piece() -> st.SearchStrategy[tuple[str, str]]:
    """(source, what it reads as) for one line of a document."""
    visible = _WORDS.map(lambda w: (w, w))
    hidden = st.tuples(_HIDING, _WORDS).map(lambda p: (_closed(*p), _blank(_closed(*p))))
    nested = st.tuples(_HIDING, _WORDS, _WORDS).map(
        lambda p: (_closed(p[0], f"{p[1]}<span>{p[2]}</span>"),
                   _blank(_closed(p[0], f"{p[1]}<span>{p[2]}</span>"))))
    inline = st.tuples(_WORDS, _HIDING, _WORDS).map(
        lambda p: (f"{p[0]} {_closed(p[1], p[2])}", f"{p[0]} " + _blank(_closed(p[1], p[2]))))
    shown = st.tuples(st.sampled_from(['<details>', '<span style="color: red">',
                                       '<span class="hidden">', '<b>']), _WORDS).map(
        lambda p: (_closed(*p), _closed(_unattributed(p[0]), p[1])))
    spanned = st.tuples(_HIDING, _WORDS).map(lambda p: (f"`{_closed(*p)}`", f"`{_closed(*p)}`"))
    fenced = st.tuples(_HIDING, _WORDS).map(
        lambda p: (f"```\n{_closed(*p)}\n```", f"```\n{_closed(*p)}\n```"))
    math = _WORDS.map(lambda w: (f"$a < b$ and {w} > 0", f"$a < b$ and {w} > 0"))
    return st.one_of(visible, hidden, nested, inline, shown, spanned, fenced, math)


@settings(max_examples=300, deadline=None)
@given(st.lists(_piece(), min_size=1, max_size=12))
def test_a_markdown_page_reads_as_it_is_seen(pieces: list[tuple[str, str]]) -> None:
    source = "## A1\n\n" + "\n\n".join(p[0] for p in pieces) + "\n"
    expected = "## A1\n\n" + "\n\n".join(p[1] for p in pieces) + "\n"
    decoded = decode_document(source.encode(), "answers.md", None)
    assert decoded.text == expected
    assert len(decoded.text) == len(source)  # evidence offsets point into the upload


def test_an_element_never_closed_is_text() -> None:
    assert rendered_text("B1 <span hidden>64\n") == "B1 <span       >64\n"


def test_two_megabytes_of_tags_read_in_linear_time() -> None:
    for unit in ("<span hidden>", "</span>", "<a ", "<b style=\"", "`<i hidden>", "<p>x</p>"):
        text = unit * (2_000_000 // len(unit))
        began = time.perf_counter()
        assert len(rendered_text(text)) == len(text)
        assert time.perf_counter() - began < stretched(5), unit  # this machine's pace


def test_white_text_on_a_background_of_its_own_is_read() -> None:
    source = '<span style="color: white; background: black">d = 64</span>\n'
    assert rendered_text(source) == _unattributed(source[:source.index(">") + 1]) \
        + "d = 64</span>\n"
