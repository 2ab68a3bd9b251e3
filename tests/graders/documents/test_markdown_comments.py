"""Class: Markdown submissions holding HTML comments or link reference definitions. A rendered
page shows nothing of `<!-- ... -->` or of `[label]: <url> "title"` (after a blank line), and
the reader handed what they hold to location and grading as answer text (a hostile student's
hidden values; an honest one's notes to self). Now they are blanked (spaces, newlines kept:
offsets still point into the upload), while a comment marker inside a fenced code block or an
inline code span is code and stays, and a definition-like line continuing a paragraph is text.
The property builds documents from such pieces and knows what each reads as."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.formats import decode_document

# visible text: never a comment marker, backtick, fence or indentation of its own
_WORDS = st.text(alphabet="abcXYZ0123456789 =$_^.,:;()*#", min_size=1, max_size=30).map(
    lambda w: w.strip() or "x")
# a comment's own text: anything that does not close it
_HIDDEN = st.text(alphabet=st.characters(blacklist_categories=("Cs", "Cc"),
                                         blacklist_characters="`"), max_size=40).filter(
    lambda h: "-->" not in h and not h.endswith("-"))


def _blank(text: str) -> str:
    return "".join("\n" if c == "\n" else " " for c in text)


def _piece() -> st.SearchStrategy[tuple[str, str]]:
    """(source, what it reads as) for one line of a document."""
    visible = _WORDS.map(lambda w: (w, w))
    comment = _HIDDEN.map(lambda h: (f"<!--{h}-->", _blank(f"<!--{h}-->")))
    inline = st.tuples(_WORDS, _HIDDEN).map(
        lambda p: (f"{p[0]} <!-- {p[1]} -->", f"{p[0]} " + _blank(f"<!-- {p[1]} -->")))
    multiline = st.tuples(_HIDDEN, _HIDDEN).map(
        lambda p: (f"<!-- {p[0]}\n{p[1]} -->", _blank(f"<!-- {p[0]}\n{p[1]} -->")))
    fenced = _HIDDEN.map(lambda h: (f"```\n<!-- {h} -->\n```", f"```\n<!-- {h} -->\n```"))
    spanned = _HIDDEN.map(lambda h: (f"`<!-- {h} -->`", f"`<!-- {h} -->`"))
    label = st.text(alphabet="abc123 _-", min_size=1, max_size=12).filter(str.strip)
    title = st.text(alphabet="abcXYZ0123456789 =_^.,:;()", max_size=30)
    definition = st.tuples(label, title).map(  # after a blank line: invisible
        lambda p: (f"\n[{p[0]}]: <https://x.y/> \"{p[1]}\"",
                   "\n" + _blank(f"[{p[0]}]: <https://x.y/> \"{p[1]}\"")))
    continued = st.tuples(_WORDS, label).map(  # a paragraph's next line: text
        lambda p: (f"{p[0]}\n[{p[1]}]: y", f"{p[0]}\n[{p[1]}]: y"))
    return st.one_of(visible, comment, inline, multiline, fenced, spanned, definition,
                     continued)


@settings(max_examples=300, deadline=None)
@given(st.lists(_piece(), min_size=1, max_size=10))
def test_a_markdown_document_reads_as_it_is_rendered(pieces: list[tuple[str, str]]) -> None:
    source = "## A1\n" + "\n".join(p[0] for p in pieces) + "\nend\n"
    expected = "## A1\n" + "\n".join(p[1] for p in pieces) + "\nend\n"
    decoded = decode_document(source.encode(), "answers.md", None)
    assert decoded.text == expected
    assert len(decoded.text) == len(source)


def test_an_unclosed_comment_is_text() -> None:
    text = "## B1\nd_head = 64 <!-- and the rest\n"
    assert decode_document(text.encode(), "a.md", None).text == text


@settings(max_examples=150, deadline=None)
@given(st.lists(_piece(), min_size=1, max_size=8))
def test_a_notebooks_markdown_cell_reads_as_jupyter_renders_it(
        pieces: list[tuple[str, str]]) -> None:
    source = "## A1\n" + "\n".join(p[0] for p in pieces)
    expected = "## A1\n" + "\n".join(p[1] for p in pieces)
    cell = {"cell_type": "markdown", "id": "a1", "metadata": {}, "source": source}
    notebook = json.dumps({"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5})
    assert decode_document(notebook.encode(), "answers.ipynb", None).text == expected.rstrip()
