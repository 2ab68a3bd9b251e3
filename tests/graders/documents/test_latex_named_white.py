"""Class: LaTeX submissions that draw white under another name: a colour defined white
(`\\definecolor{paper}{rgb}{1,1,1}`, `{gray}{1}`, `{HTML}{FFFFFF}`, `{RGB}{255,255,255}`,
`{cmyk}{0,0,0,0}`), a name made white by `\\colorlet{paper}{white}` (or a mix that is all
white, `white!100`, `black!0`), or a white given in place (`\\color[rgb]{1,1,1}`,
`\\textcolor[gray]{1}{...}`). `\\color{paper}` and `\\textcolor{paper}{...}` then draw white
on the white page: nobody sees it, and the reader read it as answer text. Now it is blanked
(spaces, offsets kept) as `white` is, while names defined in a colour that shows (`{rgb}{1,0,0}`,
`{gray}{0.5}`, a mix with black in it) read as written. The property defines colours, uses
them, and knows what each piece reads as."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.latex_source import typeset_text

_WORDS = st.text(alphabet="abcXYZ0123456789 =$_^.,:;()", min_size=1, max_size=30)
_NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=10).filter(
    lambda n: n not in {"white", "black", "red"})
WHITE_SPECS = st.sampled_from(["{rgb}{1,1,1}", "{rgb}{1.0, 1.0, 1.0}", "{gray}{1}",
                               "{HTML}{FFFFFF}", "{HTML}{ffffff}", "{RGB}{255,255,255}",
                               "{cmyk}{0,0,0,0}", "{named}{white}"])
SHOWN_SPECS = st.sampled_from(["{rgb}{1,0,0}", "{rgb}{0.99,1,1}", "{gray}{0.5}", "{HTML}{FFFFFE}",
                               "{RGB}{255,255,0}", "{cmyk}{0,0,0,0.1}", "{named}{red}"])
WHITE_MIXES = st.sampled_from(["white", "white!100", "black!0", "white!100!black",
                               "red!0!white"])
SHOWN_MIXES = st.sampled_from(["black", "white!50!black", "black!10", "red!100!white", "blue"])
IN_PLACE_WHITE = st.sampled_from(["[rgb]{1,1,1}", "[gray]{1}", "[HTML]{FFFFFF}"])
IN_PLACE_SHOWN = st.sampled_from(["[rgb]{1,0,0}", "[gray]{0}", "[HTML]{00FF00}"])


def _blank(text: str) -> str:
    return "".join("\n" if c == "\n" else " " for c in text)


@st.composite
def _document(draw: st.DrawFn) -> tuple[str, str]:
    """(source, what it reads as): colour definitions in the preamble, then pieces using them."""
    names = draw(st.lists(_NAME, min_size=1, max_size=4, unique=True))
    white = {name: draw(st.booleans()) for name in names}
    preamble = []
    for name in names:
        if draw(st.booleans()):
            spec = draw(WHITE_SPECS if white[name] else SHOWN_SPECS)
            preamble.append(f"\\definecolor{{{name}}}{spec}")
        else:
            mix = draw(WHITE_MIXES if white[name] else SHOWN_MIXES)
            preamble.append(f"\\colorlet{{{name}}}{{{mix}}}")
    head = "\n".join(preamble) + "\n\\section*{A1}\n"
    source, reads = [head], [head]
    for _ in range(draw(st.integers(1, 8))):
        word = draw(_WORDS)
        how = draw(st.sampled_from(["plain", "text", "switch", "in-place"]))
        if how == "plain":
            piece, hidden = word, False
        elif how == "in-place":
            hidden = draw(st.booleans())
            spec = draw(IN_PLACE_WHITE if hidden else IN_PLACE_SHOWN)
            piece = f"\\textcolor{spec}{{{word}}}"
        else:
            name = draw(st.sampled_from(names))
            hidden = white[name]
            piece = (f"\\textcolor{{{name}}}{{{word}}}" if how == "text"
                     else f"{{\\color{{{name}}} {word}}}")
        if hidden and how == "switch":
            source.append(piece)
            reads.append("{" + _blank(piece[1:-1]) + "}")
        else:
            source.append(piece)
            reads.append(_blank(piece) if hidden else piece)
    return " ".join(source) + "\nend\n", " ".join(reads) + "\nend\n"


@settings(max_examples=300, deadline=None)
@given(_document())
def test_white_under_another_name_is_blanked(document: tuple[str, str]) -> None:
    source, expected = document
    read = typeset_text(source)
    assert read == expected
    assert len(read) == len(source)


def test_a_colour_redefined_to_show_is_read_after() -> None:
    source = ("\\definecolor{ink}{rgb}{1,1,1}\\color{ink} 64 \\color{black} "
              "\\definecolor{ink}{rgb}{0,0,0}\\color{ink} 65")
    read = typeset_text(source)
    assert "64" not in read and read.endswith("\\color{ink} 65")


def test_a_colour_let_to_a_white_name_is_white() -> None:
    source = "\\definecolor{paper}{gray}{1}\\colorlet{bg}{paper}\\textcolor{bg}{d = 64} d = 8"
    assert typeset_text(source).endswith(" " * len("\\textcolor{bg}{d = 64}") + " d = 8")
