"""Class: LaTeX submissions holding source TeX never typesets. Students leave earlier attempts
in `%` comments (`% d_head = 32`), `\\iffalse ... \\fi` blocks and comment environments, and a
hostile one hides the expected value there behind a visible answer; either way a TA reading the
compiled document sees none of it, and the reader handed all of it to location and grading as
answer text. Now it is blanked (spaces, newlines kept, so offsets still point into the upload),
while escaped `\\%`, `\\\\` line breaks, verbatim code (`%` as an operator) and `\\verb` spans
are kept. The property builds documents from such pieces and knows what each reads as."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.formats import decode_document

# visible text: letters, digits, spaces, braces and math, never a backslash or a percent sign
_WORDS = st.text(alphabet="abcXYZ0123456789 ={}$_^.,:;()", min_size=1, max_size=30)
# a comment's own text: anything on one line
_HIDDEN = st.text(alphabet=st.characters(blacklist_characters="\n\r\x85\u2028\u2029",
                                         blacklist_categories=("Cs", "Cc")), max_size=40)
_CODE = st.text(alphabet="xyz0123456789 %=+*/()\n", max_size=40)


def _piece() -> st.SearchStrategy[tuple[str, str]]:
    """(source, what it reads as) for one piece of a document."""
    def blank(text: str) -> str:
        return "".join("\n" if c == "\n" else " " for c in text)

    visible = _WORDS.map(lambda w: (w, w))
    escaped = _WORDS.map(lambda w: (f"{w}\\% ", f"{w}\\% "))
    comment = _HIDDEN.map(lambda h: (f"%{h}\n", blank(f"%{h}") + "\n"))
    after_break = _HIDDEN.map(lambda h: (f"\\\\%{h}\n", "\\\\" + blank(f"%{h}") + "\n"))
    iffalse = _WORDS.map(lambda w: (f"\\iffalse {w} \\fi", blank(f"\\iffalse {w} \\fi")))
    environment = _WORDS.map(lambda w: (f"\\begin{{comment}}\n{w}\n\\end{{comment}}",
                                        blank(f"\\begin{{comment}}\n{w}\n\\end{{comment}}")))
    verbatim = _CODE.map(lambda c: (f"\\begin{{lstlisting}}\n{c}\n\\end{{lstlisting}}\n",
                                    f"\\begin{{lstlisting}}\n{c}\n\\end{{lstlisting}}\n"))
    verb = _CODE.filter(lambda c: "|" not in c and "\n" not in c).map(
        lambda c: (f"\\verb|{c}| ", f"\\verb|{c}| "))
    return st.one_of(visible, escaped, comment, after_break, iffalse, environment, verbatim,
                     verb)


@settings(max_examples=300, deadline=None)
@given(st.lists(_piece(), min_size=1, max_size=12))
def test_a_latex_document_reads_as_it_is_typeset(pieces: list[tuple[str, str]]) -> None:
    source = "\\section*{A1}\n" + " ".join(p[0] for p in pieces) + "\nend\n"
    expected = "\\section*{A1}\n" + " ".join(p[1] for p in pieces) + "\nend\n"
    decoded = decode_document(source.encode(), "answers.tex", None)
    assert decoded.text == expected
    assert len(decoded.text) == len(source)  # evidence offsets point into the upload


def test_other_formats_keep_their_percent_signs() -> None:
    """Only LaTeX comments are blanked: `%` in text, Markdown and Python is what it says."""
    for name in ("a.txt", "a.md", "a.py"):
        text = "B1: 50% of the heads\nx = 7 % 3  # d_head = 64\n"
        assert decode_document(text.encode(), name, None).text == text
