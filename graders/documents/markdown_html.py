"""HTML elements a rendered Markdown page (or a notebook's Markdown cell) hides: blanked.

Markdown passes HTML through, and the page shows nothing of an element with the `hidden`
attribute or a style of `display: none`, `visibility: hidden`, `opacity: 0`, `font-size: 0`, or
white text (`color: white`, `#fff`, `#ffffff`, `rgb(255, 255, 255)`) on the white page (not on
a `background` of its own). A TA reading the page sees none of it, and a hostile student hides
the expected values there beside a visible answer, as in an HTML comment
(graders/documents/markdown_source.py, which calls this after blanking comments). The element,
tags and all, becomes spaces (newlines kept: offsets kept). So do what no page shows as text:
every tag's attributes (a `title`, an `alt`, a hidden input's `value`), the content of
`<script>`, `<style>`, `<template>` and `<title>`, an inline link's title (`[text](url
"title")`: it shows only on hovering) and an image's text (`![alt](url)`: the page shows the
image). `<details>` is shown (one click
opens it) and read. An element in code (a fenced or indented block, an inline code span) is
code; one never closed is left as text. Tags are matched with a stack per name in one pass:
linear time on any input.
"""

from __future__ import annotations

import re

MAX_TAG = 2000  # characters a start tag may have (longer: not one)
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]{0,30})(?=[\s/>])")
_QUOTED = re.compile(r"\"[^\"]*\"|'[^']*'")
_HIDDEN_ATTRIBUTE = re.compile(r"(?:^|\s)hidden(?=[\s=/]|$)")
_STYLE = re.compile(r"(?:^|\s)style\s{0,8}=\s{0,8}(?:\"([^\"]*)\"|'([^']*)')")
_VOID = frozenset({"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
                   "source", "track", "wbr"})
_WHITE = frozenset({"white", "#fff", "#ffffff", "#ffff", "#ffffffff", "rgb(255,255,255)",
                    "rgba(255,255,255,1)", "hsl(0,0%,100%)"})
# elements whose content a page never shows, whatever their attributes
_UNSHOWN = frozenset({"script", "style", "template", "title"})
_NONE = {"display": ("none",), "visibility": ("hidden", "collapse"),
         "opacity": ("0", "0.0", "0%"), "font-size": ("0", "0px", "0pt", "0em", "0rem")}


def _hides(attributes: str) -> bool:
    """Whether a start tag with these attributes (lower case) renders its element unseen."""
    if _HIDDEN_ATTRIBUTE.search(_QUOTED.sub('""', attributes)):
        return True
    style = _STYLE.search(attributes)
    if style is None:
        return False
    declarations = [d.partition(":") for d in
                    "".join((style.group(1) or style.group(2) or "").split()).split(";")]
    # white text on a background of its own shows
    backed = any(name.startswith("background") for name, _, _ in declarations)
    for name, _, value in declarations:
        value = value.removesuffix("!important")
        if value in _NONE.get(name, ()) or (name == "color" and value in _WHITE and not backed):
            return True
    return False


class _Code:
    """Whether positions, asked in increasing order, lie in code: a fenced or indented block
    (`blocks`, in order) or an inline code span (an odd count of backticks before them on their
    line). Each stretch of the text is scanned a bounded number of times."""

    def __init__(self, text: str, blocks: list[tuple[int, int]]) -> None:
        self.text, self.blocks, self.block = text, blocks, 0
        self.line_end, self.ticks, self.counted = -1, 0, 0

    def holds(self, at: int) -> bool:
        while self.block < len(self.blocks) and self.blocks[self.block][1] < at:
            self.block += 1
        if self.block < len(self.blocks) and self.blocks[self.block][0] <= at:
            return True
        if at > self.line_end:
            start = self.text.rfind("\n", max(self.counted, self.line_end + 1), at) + 1
            self.counted = start or self.line_end + 1
            end = self.text.find("\n", at)
            self.line_end = len(self.text) if end < 0 else end
            self.ticks = 0
        self.ticks += self.text.count("`", self.counted, at)
        self.counted = at
        return self.ticks % 2 == 1


def _next(text: str, char: str, start: int, nexts: dict[str, int]) -> int:
    """Where `char` next stands at or after `start` (the text's length if nowhere), remembered:
    asked at starts that only grow, the text is scanned once for each."""
    if nexts.get(char, -1) < start:
        found = text.find(char, start)
        nexts[char] = len(text) if found < 0 else found
    return nexts[char]


def _hidden_elements(text: str, blocks: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The spans of hidden elements outside code, start tag to end tag, and of every tag's
    attributes (a title, an `alt`, a hidden input's value: none is on the page)."""
    regions: list[tuple[int, int]] = []
    open_tags: dict[str, list[tuple[int, bool]]] = {}
    code = _Code(text, blocks)
    nexts: dict[str, int] = {}
    for found in _TAG.finditer(text):
        close = _next(text, ">", found.end(), nexts)
        if close == len(text) or close - found.end() > MAX_TAG \
                or _next(text, "<", found.end(), nexts) < close or code.holds(found.start()):
            continue  # not a tag (a `<` in text or math), or code
        name = found.group(2).lower()
        if close > found.end():
            regions.append((found.end(), close))
        stack = open_tags.setdefault(name, [])
        if found.group(1):
            if stack:
                start, hidden = stack.pop()
                if hidden:
                    regions.append((start, close + 1))
        elif name not in _VOID and text[close - 1] != "/":
            hides = name in _UNSHOWN or _hides(text[found.end():close].lower())
            stack.append((found.start(), hides))
    return regions


def blank(text: str, chars: list[str], start: int, end: int) -> None:
    """`chars[start:end]` (`text`'s characters, some blanked already) as spaces, newlines kept:
    a slice at a time, not a character at a time (a 2 MB hidden element took a Python loop
    over each of its characters)."""
    if start < end:
        lines = text[start:end].split("\n")
        chars[start:end] = "\n".join(" " * len(line) for line in lines)


def blank_hidden_elements(text: str, blocks: list[tuple[int, int]], chars: list[str]) -> bool:
    """Blank in `chars` (`text`'s characters) each hidden element outside the code `blocks`;
    whether any was."""
    done = 0
    regions = sorted(_hidden_elements(text, blocks))
    for start, end in regions:
        blank(text, chars, max(start, done), end)
        done = max(done, end)
    return bool(regions)


# an inline link's title and an image's text: `[text](url "title")` shows the text (the title
# only on hovering), `![alt](url)` the image; the destination is kept (a table of contents is
# known by its `](#anchor)`). Each repetition bounded, each stops at the first character that
# ends it.
_TARGET = re.compile(r"(?P<alt>!\[[^\[\]\n]{0,2000})?\]\((?:[ \t]{0,8}\n?[ \t]{0,8}"
                     r"(?:<[^<>\n]{0,2000}>|[^\s()<]{1,2000}))?(?P<title>[ \t]{1,8}\n?[ \t]{0,8}"
                     r"(?:\"[^\"\n]{0,2000}\"|'[^'\n]{0,2000}'))?[ \t]{0,8}\)")


def blank_link_targets(text: str, blocks: list[tuple[int, int]], chars: list[str]) -> bool:
    """Blank in `chars` each inline link's title and each image's text, outside the code
    `blocks` and inline code spans; whether any was."""
    code = _Code(text, blocks)
    changed = False
    for found in _TARGET.finditer(text):
        if (found.group("alt") is None and found.group("title") is None) \
                or code.holds(found.start()):
            continue
        spans = [(found.start("title"), found.end("title"))] if found.group("title") else []
        if found.group("alt"):
            spans.append((found.start() + 2, found.end("alt")))  # after `![`
        for start, end in spans:
            blank(text, chars, start, end)
        changed = True
    return changed
