"""The document's own outline: LaTeX sectioning, exam-class questions and parts, enumerate items,
Markdown and Typst headings, each turned into a label with its full path (number, letter, roman).

A heading's meaning comes from its level: where a level carries explicit labels ("(a) Copying",
"Q1-2.", "Problem 7") those decide, and an unlabelled level takes the role one below its parent
(sections are numbers, their subsections letters, their subsubsections romans), counted in
order. A level above the first labelled one is a title when it holds a single heading. Every
regex here runs on one line cut to `_LINE_CAP` characters, so the scan is linear in the text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from graders.documents.labels import LETTERS, ROMANS, LabelMark
from graders.documents.titles import HeadingKind, heading_kind, title_label

_LINE_CAP = 400
MAX_NODES = 600

# role of a label level: 1 number, 2 letter, 3 roman (0: a part heading such as "Part B")
NUM, LETTER, ROMAN = 1, 2, 3

_LATEX_LEVEL = {"chapter": 0, "section": 1, "subsection": 2, "subsubsection": 3,
                "paragraph": 4, "subparagraph": 5}
_EXAM_LEVEL = {"question": 11, "titledquestion": 11, "part": 12, "subpart": 13,
               "subsubpart": 14}
_LATEX_HEAD = re.compile(
    r"[ \t]*\\(chapter|section|subsection|subsubsection|paragraph|subparagraph)\*?[ \t]*"
    r"(?:\[[^\]\n]{0,200}\])?[ \t]*\{"
)
_EXAM_HEAD = re.compile(
    r"[ \t]*\\(titledquestion|question|subsubpart|subpart|part)(?![A-Za-z])[ \t]*"
    r"((?:\{[^{}\n]{0,200}\}|\[[^\]\n]{0,20}\])[ \t]*){0,3}"
)
_LIST_BEGIN = re.compile(
    r"[ \t]*\\begin\{(enumerate|itemize|description)\}(?:\[([^\]\n]{0,120})\])?"
)
_LIST_END = re.compile(r"[ \t]*\\end\{(enumerate|itemize|description)\}")
_ITEM = re.compile(r"[ \t]*\\item(?![A-Za-z])[ \t]*(?:\[([^\]\n]{0,20})\])?")
_MD_HEAD = re.compile(r"[ \t]{0,3}(#{1,6})[ \t]+(\S.*)")
_TYPST_HEAD = re.compile(r"(={1,6})[ \t]+(\S.*)")
_FENCE = re.compile(r"[ \t]{0,3}(```|~~~)")
# what an outline line (heading, command, fence, comment) can start with
_OUTLINE_STARTS = frozenset("\\#=`~%+")
# Typst's numbered list item: "+ answer", nested by indentation
_TYPST_ITEM = re.compile(r"([ \t]*)\+[ \t]+\S")
_DOC_START = re.compile(r"\\begin\{document\}")
# Typst is recognised by its set-up lines; without them "= True" is OCR'd code, not a heading.
_TYPST_DOC = re.compile(r"(?m)^#(?:set|let|import|show) ")
# A "#" line next to code is a Python comment (code pasted without a fence), not a heading.
_CODE_LINE = re.compile(
    r"[ \t]*(?:def |import |from \w+ import|return\b|for \w+ in |\w+(?:\[[^\]\n]{0,40}\])?"
    r"[ \t]*[+\-*/@]?=[^=]|print\(|np\.)"
)

# An answer marker: "Answer:", "**My answer**", "\textbf{Solution:}", "\begin{solution}".
ANSWER_ENV = re.compile(
    r"[ \t]*\\begin\{(?:answer|solution|soln|sol|ans|response|myanswer|studentanswer)\*?\}",
    re.IGNORECASE,
)
ANSWER_MARK = re.compile(
    r"[ \t]*(?:\\textbf\{|\\textit\{|\\emph\{|\\underline\{|\*\*|__|\*|_|#{1,6}[ \t]*|>[ \t]*)?"
    r"[ \t]*(?:my |your |our |final |student(?:'s)? )?(?:answer|solution|response|ans|soln|sol)s?"
    r"[ \t]*(?::|\.(?=\s)|(?=[ \t]*(?:\}|\*\*|__)))[ \t]*(?:\}|\*\*|__|\*|_)?[ \t]*:?",
    re.IGNORECASE,
)

@dataclass
class Node:
    start: int  # where the heading's line starts
    end: int  # where the text after the heading starts
    key: int  # nesting order: a smaller key is an outer level
    raw: str
    explicit: dict[str, object]
    item: bool = False
    depth: int = 0  # for list items: nesting depth of the list
    hint: int | None = None  # role the list's label style names (\roman*, \alph*, \arabic*)
    parent: Node | None = None
    ordinal: int = 1
    role: int | None = None
    path: dict[str, object] = field(default_factory=dict)
    kind: HeadingKind = ""  # front matter or a frame around the answers: numbers nothing
    by_order: bool = False  # its path comes from counting headings, not from a label


def _deepest(fields: dict[str, object]) -> int | None:
    for role, name in ((ROMAN, "roman"), (LETTER, "letter"), (NUM, "num")):
        if name in fields:
            return role
    return 0 if "part" in fields else None


def _list_hint(options: str | None) -> int | None:
    if not options:
        return None
    if "roman" in options.lower():
        return ROMAN
    if "alph" in options.lower():
        return LETTER
    if "arabic" in options:
        return NUM
    return None


def _brace_title(line: str, open_at: int) -> str:
    depth, out = 1, []
    for ch in line[open_at:]:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                break
        out.append(ch)
    return "".join(out)


def scan(text: str, depth: int = ROMAN) -> list[Node]:
    """Headings and list items in document order, each with its parent, at most MAX_NODES.

    A Markdown heading next to a code-like line ("## B1" over "d_head = 64") is read as a Python
    comment, unless the document uses headings of that level with labels elsewhere, away from
    code ("## A1" over prose): then its labelled headings of that level are all headings.
    """
    nodes, suspects = _scan(text, frozenset(), depth)
    labelled = {n.key for n in nodes if 20 <= n.key < 30 and not n.item and n.explicit}
    if suspects & labelled:
        nodes, _ = _scan(text, frozenset(suspects & labelled), depth)
    return nodes


def _scan(
    text: str, headings: frozenset[int], rubric_depth: int
) -> tuple[list[Node], set[int]]:
    """`headings`: Markdown levels whose labelled headings count even beside code. Returns the
    nodes and the levels of labelled headings that were dropped as comments beside code."""
    suspects: set[int] = set()
    nodes: list[Node] = []
    stack: list[Node] = []
    lists: list[tuple[str, int | None, list[int]]] = []  # (kind, hint, [item count])
    siblings: dict[tuple[int, int], int] = {}
    in_fence = False
    typst = _TYPST_DOC.search(text, 0, 20_000) is not None
    typst_items: dict[int, int] = {}  # Typst "+" items counted per depth under a heading
    previous_line = ""
    begin = _DOC_START.search(text)
    pos = begin.end() if begin else 0
    length = len(text)
    while pos < length and len(nodes) < MAX_NODES:
        newline = text.find("\n", pos)
        line_end = length if newline < 0 else newline
        line = text[pos:min(line_end, pos + _LINE_CAP)]
        next_pos = line_end + 1
        first = line.lstrip()[:1]
        if first not in _OUTLINE_STARTS:  # most lines: prose, maths, code
            previous_line = line
            pos = next_pos
            continue
        if _FENCE.match(line):
            in_fence = not in_fence
            pos = next_pos
            continue
        if in_fence or line.lstrip().startswith("%"):
            pos = next_pos
            continue
        node = _heading(line, pos, line_end, typst)
        if (node is not None and 20 <= node.key < 30
                and not (node.key in headings and node.explicit)
                and _beside_code(text, previous_line, next_pos)):
            if node.explicit:
                suspects.add(node.key)
            node = None
        previous_line = line
        if node is None and typst:
            item = _TYPST_ITEM.match(line)
            if item:
                depth = len(item.group(1).expandtabs(2)) // 2 + 1
                for deeper in [d for d in typst_items if d > depth]:
                    del typst_items[deeper]
                typst_items[depth] = typst_items.get(depth, 0) + 1
                nodes.append(Node(pos, pos + item.end() - 1, 100, line[:item.end() - 1].strip(),
                                  {}, item=True, depth=depth,
                                  parent=stack[-1] if stack else None,
                                  ordinal=typst_items[depth]))
                pos = next_pos
                continue
        if node is not None:
            typst_items.clear()
            while stack and stack[-1].key >= node.key:
                stack.pop()
            lists.clear()
            node.parent = stack[-1] if stack else None
            if node.parent is not None and node.parent.kind == "front" and not node.explicit:
                node.kind = "front"  # under "## Set-up", "### Model" is set-up too
            _number(node, siblings)
            stack.append(node)
            nodes.append(node)
            pos = next_pos
            continue
        m = _LIST_BEGIN.match(line)
        if m:
            lists.append((m.group(1), _list_hint(m.group(2)), [0]))
        elif _LIST_END.match(line):
            if lists:
                lists.pop()
        else:
            item = _ITEM.match(line)
            if item and lists:
                kind, hint, count = lists[-1]
                count[0] += 1
                explicit = title_label(item.group(1) or "")
                if kind == "enumerate" or explicit:
                    depth = sum(1 for k, _, _ in lists if k == "enumerate") or 1
                    nodes.append(Node(pos, pos + item.end(), 100, line[:item.end()].strip(),
                                      explicit, item=True, depth=depth, hint=hint,
                                      parent=stack[-1] if stack else None, ordinal=count[0]))
        pos = next_pos
    _assign_roles(nodes, rubric_depth)
    return nodes, suspects


def _beside_code(text: str, previous_line: str, next_pos: int) -> bool:
    following = text[next_pos:next_pos + 200].lstrip("\n").split("\n", 1)[0]
    return bool(_CODE_LINE.match(previous_line) or _CODE_LINE.match(following))


def _heading(line: str, start: int, line_end: int, typst: bool) -> Node | None:
    m = _LATEX_HEAD.match(line)
    if m:
        title = _brace_title(line, m.end())
        end = start + min(len(line), m.end() + len(title) + 1)
        return Node(start, end, _LATEX_LEVEL[m.group(1)], line[:end - start].strip(),
                    title_label(title), kind="" if title_label(title) else heading_kind(title))
    m = _EXAM_HEAD.match(line)
    if m:
        args = m.group(2) or ""
        title = args[args.find("{") + 1:args.find("}")] if "{" in args else ""
        return Node(start, start + m.end(), _EXAM_LEVEL[m.group(1)], line[:m.end()].strip(),
                    title_label(title))
    for pattern, offset in ((_MD_HEAD, 20), (_TYPST_HEAD, 30)):
        if pattern is _TYPST_HEAD and not typst:
            continue
        m = pattern.match(line)
        if m:
            explicit = title_label(m.group(2))
            return Node(start, line_end, offset + len(m.group(1)), line.strip(), explicit,
                        kind="" if explicit else heading_kind(m.group(2)))
    return None


def _number(node: Node, siblings: dict[tuple[int, int], int]) -> None:
    if node.kind:
        return  # front matter and frames are not counted among the questions
    slot = (id(node.parent) if node.parent is not None else 0, node.key)
    siblings[slot] = siblings.get(slot, 0) + 1
    node.ordinal = siblings[slot]


def _assign_roles(nodes: list[Node], depth: int = ROMAN) -> None:
    """`depth`: the deepest level the rubric's questions have (1: numbers only); a level
    counted by order below it numbers nothing (a "#### Reference:" under "### 1." is not 1(a))."""
    headings = [n for n in nodes if not n.item and not n.kind]
    keys = sorted({n.key for n in headings})
    votes: dict[int, list[int]] = {k: [] for k in keys}
    for node in headings:
        role = _deepest(node.explicit)
        if role is not None:
            votes[node.key].append(role)
    roles: dict[int, int | None] = {}
    labelled = [k for k in keys if votes[k]]
    for k in labelled:
        roles[k] = max(set(votes[k]), key=votes[k].count)
    if labelled:
        top = labelled[0]
        above = [k for k in keys if k < top]
        for distance, k in enumerate(reversed(above), start=1):
            role = (roles[top] or 0) - distance
            roles[k] = role if role >= NUM else None
    else:
        # a lone top heading is the document's title when it is a Markdown/Typst level-1
        # heading or when there are more levels than number, letter and roman
        counts = {k: sum(1 for n in headings if n.key == k) for k in keys}
        title = len(keys) > 1 and counts[keys[0]] == 1 and (
            keys[0] in (21, 31) or len(keys) > ROMAN)
        start = 1 if title else 0
        for k in keys[:start]:
            roles[k] = None
        # a lone unlabelled heading with nothing under it ("## Results", "## Notes") numbers
        # nothing
        if len(keys) == 1 and counts[keys[0]] == 1:
            roles[keys[0]] = None
    previous: int | None = None
    for k in keys:
        if k not in roles:
            roles[k] = (previous or 0) + 1 if (previous or 0) < min(depth, ROMAN) else None
        previous = roles[k] if roles[k] is not None else previous
    for node in nodes:
        if node.kind:
            node.role = None
            _fill_path(node)
            continue
        if node.item:
            base = _enclosing_role(node)
            role = _deepest(node.explicit)
            if role is None:
                role = node.hint if node.hint is not None and node.hint > base else (
                    base + node.depth)
            node.role = role if role <= ROMAN else None
        else:
            explicit = _deepest(node.explicit)
            node.role = explicit if explicit is not None else roles.get(node.key)
            if explicit is None and node.role == NUM and votes.get(node.key):
                # "# Overview" among "# Q1." and "# Q2.": a heading inside an answer, where
                # the questions carry their labels; not a question counted by order
                node.role = None
            # exam-class \question, \part, \subpart are numbered by the class itself
            node.by_order = (explicit is None and node.role is not None
                             and node.key not in _EXAM_LEVEL.values())
        _fill_path(node)


def _enclosing_role(node: Node) -> int:
    parent = node.parent
    while parent is not None:
        if parent.role is not None:
            return parent.role
        parent = parent.parent
    return 0


def _fill_path(node: Node) -> None:
    path: dict[str, object] = {}
    parent = node.parent
    while parent is not None and not parent.path and parent.role is None:
        parent = parent.parent
    if parent is not None:
        path.update(parent.path)
    if node.role is None:
        node.path = path
        return
    names = ("part", "num", "letter", "roman")
    # a deeper level than this node's role is reset by it
    for name in names[node.role + 1:]:
        path.pop(name, None)
    if node.explicit:
        path.update(node.explicit)
    elif node.role == NUM:
        path["num"] = node.ordinal
    elif node.role == LETTER and node.ordinal <= len(LETTERS):
        path["letter"] = LETTERS[node.ordinal - 1]
    elif node.role == ROMAN and node.ordinal <= len(ROMANS):
        path["roman"] = ROMANS[node.ordinal - 1]
    node.path = path


def structural_marks(text: str, depth: int = ROMAN) -> list[LabelMark]:
    """One LabelMark per heading or list item that has a role, with its full path."""
    return read_outline(text, depth)[0]


def read_outline(
    text: str, depth: int = ROMAN
) -> tuple[list[LabelMark], list[tuple[int, int]]]:
    """The outline's labels, and the spans of its front-matter sections (set-up, requirements,
    usage, references: a numbered list there is a list of steps, never of answers)."""
    marks: list[LabelMark] = []
    nodes = scan(text, depth)
    front: list[tuple[int, int]] = []
    opened: Node | None = None
    for node in nodes:
        if node.item:
            pass
        elif opened is not None and node.key <= opened.key and node.kind != "front":
            front.append((opened.start, node.start))
            opened = None
        elif opened is None and node.kind == "front":
            opened = node
        if node.role is None or not node.path:
            continue
        path = node.path
        part = path.get("part")
        num, letter, roman = path.get("num"), path.get("letter"), path.get("roman")
        heading = node.role == 0
        marks.append(LabelMark(
            start=node.start, end=node.end, raw=node.raw[:80],
            part=part if isinstance(part, str) else None,
            num=num if isinstance(num, int) else None,
            letter=letter if isinstance(letter, str) else None,
            roman=roman if isinstance(roman, str) else None,
            heading=heading, structural=True, level=node.role, by_order=node.by_order,
        ))
    if opened is not None:
        front.append((opened.start, len(text)))
    return marks, front
