"""Class: Markdown submissions (and notebooks' Markdown cells) holding text that is in the
source but not on the rendered page, beyond comments and hidden elements
(test_markdown_hidden.py): an inline link's title (`[See the table](#b1 "d_head = 64")`: it
shows only on hovering), an image's text (`![d_head = 64](x.png)`: the page shows the image),
the attributes of any HTML tag (`<span title="...">`, `<img alt="...">`, `<input type="hidden"
value="...">`) and the content of elements no page shows (`<script>`, `<style>`, `<template>`,
`<title>`). A hostile student hides the expected values there beside a visible answer; the
reader handed them to grading. Now they are blanked (spaces, newlines kept: offsets point into
the upload), while a link's text and destination, the text between tags, the same markup in
code, and brackets or parentheses that are no link read as written. The property builds
documents from such pieces and knows what each reads as."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.formats import decode_document
from graders.documents.markdown_source import rendered_text

# visible text: never a tag, bracket, backtick, fence or indentation of its own
_WORDS = st.text(alphabet="abcXYZ0123456789 =$_^.,:;*", min_size=1, max_size=30).map(
    lambda w: w.strip() or "x")
_URL = st.text(alphabet="abcxyz0123456789/.-_#~?=&", min_size=1, max_size=30)


def _blank(text: str) -> str:
    return "".join("\n" if c == "\n" else " " for c in text)


def _link(text: str, url: str, title: str) -> tuple[str, str]:
    return f'[{text}]({url} "{title}")', f"[{text}]({url}" + _blank(f' "{title}"') + ")"


def _image(alt: str, url: str) -> tuple[str, str]:
    return f"![{alt}]({url})", "![" + _blank(alt) + f"]({url})"


def _tagged(name: str, attribute: str, value: str, words: str) -> tuple[str, str]:
    attributes = f' {attribute}="{value}"'
    return (f"<{name}{attributes}>{words}</{name}>",
            f"<{name}{_blank(attributes)}>{words}</{name}>")


def _unshown(name: str, words: str) -> tuple[str, str]:
    element = f"<{name}>{words}</{name}>"
    return element, _blank(element)


def _piece() -> st.SearchStrategy[tuple[str, str]]:
    """(source, what it reads as) for one block of a document."""
    visible = _WORDS.map(lambda w: (w, w))
    link = st.tuples(_WORDS, _URL, _WORDS).map(lambda p: _link(*p))
    image = st.tuples(_WORDS, _URL).map(lambda p: _image(*p))
    tagged = st.tuples(st.sampled_from(["span", "abbr", "a", "b"]),
                       st.sampled_from(["title", "data-note", "alt", "href"]), _WORDS,
                       _WORDS).map(lambda p: _tagged(*p))
    hidden_input = _WORDS.map(lambda w: (f'<input type="hidden" value="{w}">',
                                         "<input" + _blank(f' type="hidden" value="{w}"') + ">"))
    unshown = st.tuples(st.sampled_from(["script", "style", "template", "title"]),
                        _WORDS).map(lambda p: _unshown(*p))
    spanned = st.tuples(_WORDS, _URL).map(lambda p: (f"`[{p[0]}]({p[1]})`",) * 2)
    fenced = st.tuples(_WORDS, _URL).map(lambda p: (f"```\n[{p[0]}]({p[1]} \"t\")\n```",) * 2)
    brackets = st.tuples(_WORDS, _WORDS).map(lambda p: (f"[{p[0]}] ({p[1]})",) * 2)
    return st.one_of(visible, link, image, tagged, hidden_input, unshown, spanned, fenced,
                     brackets)


@settings(max_examples=300, deadline=None)
@given(st.lists(_piece(), min_size=1, max_size=12))
def test_a_markdown_page_reads_as_it_is_seen(pieces: list[tuple[str, str]]) -> None:
    source = "## A1\n\n" + "\n\n".join(p[0] for p in pieces) + "\n"
    expected = "## A1\n\n" + "\n\n".join(p[1] for p in pieces) + "\n"
    decoded = decode_document(source.encode(), "answers.md", None)
    assert decoded.text == expected
    assert len(decoded.text) == len(source)  # evidence offsets point into the upload


@pytest.mark.parametrize("unit", ["](", "![", '](x "', "](<", '<a title="x">', "<script>",
                                  "](x ", "![a](", "`](x)"])
def test_two_megabytes_of_one_unit_read_in_linear_time(unit: str) -> None:
    text = unit * (2_000_000 // len(unit))
    began = time.process_time()
    assert len(rendered_text(text)) == len(text)
    assert time.process_time() - began < 10, unit
