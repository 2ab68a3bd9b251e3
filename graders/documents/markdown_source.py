"""A Markdown document as its rendered page reads: HTML comments and link reference
definitions are blanked.

`<!-- ... -->` renders as nothing, and so does a link reference definition (`[label]: <url>
"title"` on a line of its own after a blank line), so a TA reading the page never sees what
they hold, and a hostile student hides the expected values there behind a visible answer (as
in a LaTeX comment: graders/documents/latex_source.py). Each of their characters becomes a
space (newlines kept), so the text keeps its length and every offset. Inside a fenced code
block, an indented code line or an inline code span they are code and are kept; so is a
comment never closed (inline, CommonMark shows it as text). An HTML element the page renders
hidden (`hidden`, `display:none`, `visibility:hidden`, white text) is blanked too
(graders/documents/markdown_html.py), and so are tag attributes, link titles and images'
text. Linear time on any input.
"""

from __future__ import annotations

import re

from graders.documents.markdown_html import blank, blank_hidden_elements, blank_link_targets

_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
# a whole line that is a link reference definition (CommonMark: at most three spaces, a label,
# a destination, an optional title); lengths bounded, no nested repetition: linear per line
_DEFINITION = re.compile(
    r' {0,3}\[[^\]\n]{1,200}\]:[ \t]*(?:<[^>\n]{0,2000}>|[^\s<]\S{0,2000})'
    r'(?:[ \t]+(?:"[^"\n]{0,2000}"|\'[^\'\n]{0,2000}\'|\([^)\n]{0,2000}\)))?[ \t]*')
_OPEN = "<!--"
_CLOSE = "-->"


def _code_lines(text: str) -> list[tuple[int, int]]:
    """The spans of fenced code blocks (fence lines included) and of indented code lines."""
    spans: list[tuple[int, int]] = []
    fence = ""
    start = at = 0
    for line in text.split("\n"):
        end = at + len(line)
        opened = _FENCE.match(line)
        if fence:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence) \
                    and not line[opened.end():].strip():
                spans.append((start, end))
                fence = ""
        elif opened:
            fence, start = opened.group(1), at
        elif line.startswith(("    ", "\t")):
            spans.append((at, end))
        at = end + 1
    if fence:
        spans.append((start, len(text)))
    return spans


def rendered_text(text: str) -> str:
    """`text` with every HTML comment, link reference definition and hidden HTML element
    outside code blanked."""
    if _OPEN not in text and "]" not in text and "<" not in text:
        return text
    code = _code_lines(text)
    chars = list(text)
    changed = _blank_definitions(text, code, chars)
    changed = _blank_comments(text, code, chars) or changed
    if "](" in text:
        changed = blank_link_targets(text, code, chars) or changed
    if "<" in text:
        shown = "".join(chars) if changed else text
        changed = blank_hidden_elements(shown, code, chars) or changed
    return "".join(chars) if changed else text


def _blank_definitions(text: str, code: list[tuple[int, int]], chars: list[str]) -> bool:
    """Blank each line that is a link reference definition where one may stand: after a blank
    line, another definition or the start (one cannot interrupt a paragraph), not in code."""
    changed = False
    at, span, may_start = 0, 0, True
    for line in text.split("\n"):
        end = at + len(line)
        while span < len(code) and code[span][1] < at:
            span += 1
        in_code = span < len(code) and code[span][0] <= at
        if not in_code and may_start and "]:" in line and _DEFINITION.fullmatch(line):
            blank(text, chars, at, end)
            changed = True
        else:
            may_start = not line.strip()
        at = end + 1
    return changed


def _blank_comments(text: str, code: list[tuple[int, int]], chars: list[str]) -> bool:
    changed = False
    span = 0
    # the current line's start and end, and its backticks counted up to `counted`: each
    # stretch of the text is scanned a bounded number of times
    line_start, line_end, ticks, counted = 0, -1, 0, 0
    at = text.find(_OPEN)
    while at >= 0:
        while span < len(code) and code[span][1] < at:
            span += 1
        if span < len(code) and code[span][0] <= at:
            at = text.find(_OPEN, code[span][1])
            continue
        if at > line_end:
            line_start = text.rfind("\n", max(counted, line_end + 1), at) + 1 or line_end + 1
            line_end = text.find("\n", at)
            line_end = len(text) if line_end < 0 else line_end
            ticks, counted = 0, line_start
        ticks += text.count("`", counted, at)
        counted = at
        if ticks % 2:  # inside an inline code span
            at = text.find(_OPEN, at + len(_OPEN))
            continue
        close = text.find(_CLOSE, at + len(_OPEN))
        if close < 0:
            break  # never closed: shown as text, and no later comment closes either
        blank(text, chars, at, close + len(_CLOSE))
        changed = True
        at = text.find(_OPEN, close + len(_CLOSE))
    return changed
