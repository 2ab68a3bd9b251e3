"""Getting the code out of an answer: .py text, notebook cells, Markdown fences and indented
blocks, JSON, and OCR'd handwriting. Every change made is recorded in words, so the feedback
shows exactly what ran. Student text is only ever compiled here (to test syntax), never run.
"""

from __future__ import annotations

import itertools
import json
import keyword
import re
import warnings
from dataclasses import dataclass, field

from graders.code.fences import fence_blocks as _fence_blocks
from graders.code.fences import is_python
from graders.code.latex_listings import latex_code_blocks

MAX_SOURCE = 64 * 1024
MAX_LINES = 2000

_STRIKE = re.compile(r"~~(.+?)~~")
_MATH = re.compile(r"\$\$?")
_CODE_START = re.compile(
    r"^\s*(import\s+\w|from\s+[\w.]+\s+import\s|def\s+\w+\s*\(|class\s+\w+|@\w)")
_DEDENT_WORDS = ("else", "elif", "except", "finally")
_BLOCK_END_WORDS = ("return", "raise", "break", "continue", "pass")
# Typesetting that OCR and word processors put into code: (found, meant, what the log says).
_TYPOGRAPHY = (
    ("\\_", "_", "the LaTeX escape `\\_` with `_`"),
    ("\u2212", "-", "the typographic minus `\u2212` with `-`"),
    ("\u201c", '"', "curly quotes with straight ones"),
    ("\u201d", '"', "curly quotes with straight ones"),
    ("\u2018", "'", "curly quotes with straight ones"),
    ("\u2019", "'", "curly quotes with straight ones"),
)
_CAPITALISED_BUILTINS = {"Print": "print", "Len": "len", "Range": "range", "Return": "return"}


@dataclass(frozen=True)
class ExtractedCode:
    source: str  # exactly what will run
    origin: str  # where it came from, in words
    normalisations: tuple[str, ...] = ()


@dataclass
class _Log:
    items: list[str] = field(default_factory=list)

    def add(self, text: str) -> None:
        if text not in self.items:
            self.items.append(text)


def _compiles(source: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "<answer>", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError, OverflowError):
        return False
    return True


def _syntax_error(source: str) -> SyntaxError | None:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(source, "<answer>", "exec", dont_inherit=True)
    except SyntaxError as exc:
        return exc
    except (ValueError, MemoryError, RecursionError, OverflowError):
        return SyntaxError("cannot be compiled")
    return None


def _short(line: str, limit: int = 60) -> str:
    line = line.strip()
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _is_statement(line: str) -> bool:
    """Whether one line (indentation lost) can be a line of Python."""
    text = line.strip()
    if not text:
        return True
    probes = (text, text + "\n    pass", "def _f():\n    " + text,
              "for _ in ():\n    " + text, "if 1:\n    pass\n" + text + "\n    pass",
              "try:\n    pass\n" + text + "\n    pass")
    return any(_compiles(p) for p in probes)


def _strip_magics(code: str, log: _Log) -> str:
    kept = []
    for line in code.splitlines():
        if line.lstrip().startswith(("%", "!")):
            log.add(f"skipped the notebook magic `{_short(line)}`")
            continue
        kept.append(line)
    return "\n".join(kept)


def _from_json(text: str, log: _Log) -> str | None:
    stripped = text.strip()
    if not stripped.startswith(("{", '"')):
        return None
    try:
        data = json.loads(stripped)
    except (ValueError, RecursionError):
        return None
    if isinstance(data, str):
        log.add("read the answer as a JSON string")
        return data
    if isinstance(data, dict):
        cells = data.get("cells")
        if isinstance(cells, list):
            sources = []
            for cell in cells:
                if isinstance(cell, dict) and cell.get("cell_type") == "code":
                    body = cell.get("source", "")
                    sources.append("".join(body) if isinstance(body, list) else str(body))
            log.add(f"took the {len(sources)} code cells of the notebook, in order")
            return "```python\n" + "\n```\n```python\n".join(sources) + "\n```"
        for key in ("code", "source", "answer"):
            if isinstance(data.get(key), str):
                log.add(f"read the code from the JSON field {key!r}")
                return str(data[key])
    return None


def _fenced(text: str, log: _Log) -> str | None:
    blocks = [body for language, body in _fence_blocks(text) if is_python(language)]
    if not blocks:
        return None
    if len(blocks) > 1:
        log.add(f"joined {len(blocks)} code blocks in order")
    return _strip_magics("\n\n".join(b.rstrip("\n") for b in blocks), log)


def _indented(text: str, log: _Log) -> str | None:
    blocks: list[list[str]] = []
    current: list[str] = []
    for line in text.splitlines():
        if line.startswith(("    ", "\t")) or (current and not line.strip()):
            current.append(line[4:] if line.startswith("    ") else line[1:])
        else:
            if current:
                blocks.append(current)
            current = []
    if current:
        blocks.append(current)
    code_blocks = ["\n".join(b).strip("\n") for b in blocks if any("def " in x for x in b)]
    source = "\n\n".join(code_blocks)
    if code_blocks and _compiles(source):
        log.add("took the indented code block(s) of the Markdown answer")
        return source
    return None


def _ocr_line_fixes(line: str, log: _Log) -> str:
    if "~~" in line:
        struck = _STRIKE.findall(line)
        if struck:
            line = _STRIKE.sub("", line)
            for text in struck:
                log.add(f"dropped the struck-through text `{_short(text)}`")
    if "$" in line:
        cleaned = _MATH.sub("", line)
        if cleaned != line:
            log.add("removed `$…$` math delimiters around code")
            line = cleaned
    for odd, plain, words in _TYPOGRAPHY:
        if odd in line:
            line = line.replace(odd, plain)
            log.add(f"replaced {words}")
    stripped = line.rstrip()
    if stripped.endswith(".") and not stripped.endswith("..") and len(stripped) > 1 \
            and (stripped[-2].isalnum() or stripped[-2] in ")]_") \
            and not _is_statement(stripped) and _is_statement(stripped[:-1]):
        log.add(f"removed the full stop ending `{_short(stripped[:-1])}`")
        line = stripped[:-1]
    stripped = line.rstrip()
    header = stripped.split("(")[0].split()
    if header and header[0] in ("def", "for", "while", "if", "elif", "with", "class") \
            and not stripped.endswith(":") and not _is_statement(stripped) \
            and _is_statement(stripped + ":"):
        log.add(f"added the missing colon after `{_short(stripped)}`")
        line = stripped + ":"
    first = re.match(r"^(\s*)([A-Z][a-z]+)\b", line)
    if first:
        word = first.group(2)
        lower = _CAPITALISED_BUILTINS.get(word, word.lower())
        if keyword.iskeyword(lower) or word in _CAPITALISED_BUILTINS:
            log.add(f"lower-cased `{word}` to `{lower}`")
            line = first.group(1) + lower + line[first.end():]
    return line


def _fix_name_case(lines: list[str], log: _Log) -> list[str]:
    """`Scores = ...` later used as `scores`: a capitalised first word that is never used
    capitalised again is the transcription's doing."""
    words = re.findall(r"\b[A-Za-z_]\w*\b", "\n".join(lines))
    fixed = []
    for line in lines:
        match = re.match(r"^(\s*)([A-Z]\w*)(\s*=[^=])", line)
        if match:
            name = match.group(2)
            lower = name[0].lower() + name[1:]
            if words.count(name) == 1 and lower in words and not keyword.iskeyword(lower):
                log.add(f"read `{name}` as `{lower}` (the name is used in lower case elsewhere)")
                line = match.group(1) + lower + line[match.end(2):]
        fixed.append(line)
    return fixed


def _reindent(lines: list[str], log: _Log) -> list[str]:
    """Handwriting loses indentation. Rebuild it: a `def` opens a body that ends with its last
    top-level `return` or at the next top-level statement; a nested block header indents the
    statements after it until a dedenting keyword or a block-ending statement."""
    out: list[str] = []
    depth = 0
    changed = False
    for raw in lines:
        text = raw.strip()
        if not text:
            out.append("")
            continue
        if _CODE_START.match(text) or text.startswith("if __name__"):
            depth = 0
        elif depth > 1 and text.split("(")[0].split(":")[0].split()[0] in _DEDENT_WORDS:
            depth -= 1
        indented = "    " * depth + text
        changed = changed or indented != raw
        out.append(indented)
        if text.endswith(":"):
            depth += 1
        elif depth >= 1 and text.split()[0] in _BLOCK_END_WORDS:
            depth = max(depth - 1, 0)
    if changed:
        log.add("rebuilt the indentation lost in transcription (function bodies end at their "
                "last `return`)")
    return out


def _needs_reindent(lines: list[str]) -> bool:
    for i, line in enumerate(lines):
        if line.rstrip().endswith(":") and line.strip():
            following = next((x for x in lines[i + 1:] if x.strip()), None)
            if following is not None:
                indent = len(line) - len(line.lstrip())
                if len(following) - len(following.lstrip()) <= indent:
                    return True
    return False


def _from_prose(text: str, log: _Log) -> str | None:
    lines = [_ocr_line_fixes(line, log) for line in text.splitlines()]
    start = next((i for i, line in enumerate(lines) if _CODE_START.match(line)), None)
    if start is None:
        return None
    prose = [line for line in lines[:start] if line.strip()]
    if prose:
        log.add(f"ignored {len(prose)} line(s) of prose before the code")
    kept: list[str] = []
    pending = ""
    for line in lines[start:]:
        candidate = (pending + " " + line.strip()) if pending else line
        depth = candidate.count("(") + candidate.count("[") - candidate.count(")") \
            - candidate.count("]")
        if depth > 0 and len(candidate) < 2000:
            pending = candidate
            continue
        pending = ""
        if _is_statement(candidate):
            kept.append(candidate)
        else:
            log.add(f"dropped a line that is not Python: `{_short(candidate)}`")
    if pending:
        log.add(f"dropped an unfinished line: `{_short(pending)}`")
    kept = _fix_name_case(kept, log)
    if _needs_reindent(kept):
        kept = _reindent(kept, log)
    return "\n".join(kept).strip("\n") + "\n"


def _drop_bad_lines(source: str, log: _Log) -> str:
    """Last resort: drop the lines the compiler rejects, one at a time, never a `def` line."""
    lines = source.splitlines()
    for _ in range(10):
        error = _syntax_error("\n".join(lines))
        if error is None or not error.lineno or error.lineno > len(lines):
            break
        bad = lines[error.lineno - 1]
        if not bad.strip() or bad.lstrip().startswith(("def ", "class ")):
            break
        log.add(f"dropped a line the Python compiler rejects: `{_short(bad)}`")
        del lines[error.lineno - 1]
    return "\n".join(lines) + "\n"


_OCR_MARKS = ("$", "~~", "\\_", *(odd for odd, _, _ in _TYPOGRAPHY))
_CAPITALISED_KEYWORD = re.compile(r"^[ \t]*(Import|From|Def|Return|For|If|Else|Elif|While)\b",
                                  re.M)


def _looks_typed(lines: list[str]) -> bool:
    """Typed code keeps its indentation (some block header is followed by an indented line) and
    carries none of the transcription's artefacts (`$…$`, `~~…~~`, typographic quotes or
    minus, a capitalised keyword starting a line): it runs exactly as written."""
    text = "\n".join(lines)
    if any(mark in text for mark in _OCR_MARKS) or _CAPITALISED_KEYWORD.search(text):
        return False
    # Transcription loses indentation everywhere; typed code with an indentation error still
    # has it somewhere after a block header.
    filled = [line for line in lines if line.strip()]
    return any(line.rstrip().endswith(":") and following[:1] in (" ", "\t")
               for line, following in itertools.pairwise(filled))


def _typed(text: str, log: _Log) -> str | None:
    """Typed code from its first line of code on (prose before it is set aside), unaltered."""
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if _CODE_START.match(line)), None)
    if start is None or not _looks_typed(lines[start:]):
        return None
    if any(line.strip() for line in lines[:start]):
        log.add(f"ignored {sum(bool(x.strip()) for x in lines[:start])} line(s) of prose "
                "before the code")
    # Blank lines in place of the prose keep every line number the student's.
    return "\n".join(["" for _ in lines[:start]] + lines[start:]).rstrip("\n") + "\n"


def _without_cut_fence(text: str, log: _Log) -> str:
    """An answer cut out of one code block that answers several questions ("# Q3" ... "```")
    keeps the block's closing fence, or its opening one, without the other: an odd number of
    fence lines, the first of them opening the text (its closer lies after the answer) or a bare
    fence after code (its opener lies before). That line is blanked (every line keeps its
    number), and so is the text on its other side, outside the block (prose after the
    closing fence, before the opening one)."""
    lines = text.split("\n")
    fences = [i for i, line in enumerate(lines) if line.strip().startswith(("```", "~~~"))]
    filled = [i for i, line in enumerate(lines) if line.strip()]
    if len(fences) % 2 == 0 or not filled:
        return text
    cut = fences[0]
    if cut != filled[0] and lines[cut].strip() not in ("```", "~~~"):
        return text
    log.add("left out a code fence whose other half lies outside this answer")
    if cut == filled[0]:  # an opening fence: the code follows it
        return "\n".join(["" for _ in lines[:cut + 1]] + lines[cut + 1:])
    return "\n".join(lines[:cut])  # a closing fence: the code is what came before it


def extract_code(text: str) -> ExtractedCode | None:
    """The program to run for this answer, or None when the answer holds no code at all."""
    if len(text) > MAX_SOURCE or text.count("\n") > MAX_LINES:
        text = text[:MAX_SOURCE]
    log = _Log()
    json_text = _from_json(text, log)
    if json_text is not None:
        text = json_text
    text = _without_cut_fence(text, log)
    fenced = _fenced(text, log)
    if fenced is None and (listings := latex_code_blocks(text)):
        log.add(f"took the code of {len(listings)} LaTeX code environment(s)")
        fenced = _strip_magics("\n\n".join(b.rstrip("\n") for b in listings), log)
    if fenced is not None:
        origin = "code blocks"
        source = fenced
    elif _compiles(text) and any(_CODE_START.match(line) for line in text.splitlines()):
        return ExtractedCode(text if text.endswith("\n") else text + "\n", "a Python file",
                             tuple(log.items))
    else:
        indented = _indented(text, log)
        if indented is not None:
            return ExtractedCode(indented + "\n", "an indented code block", tuple(log.items))
        typed = _typed(text, log)
        if typed is not None:
            # Typed code runs as written: its syntax errors are the student's, at their line.
            return ExtractedCode(typed, "typed code", tuple(log.items))
        origin = "handwriting or plain text"
        source = text
    if _compiles(source) or origin == "code blocks":
        # Typed code runs as written: its syntax errors are the student's to see.
        return ExtractedCode(source if source.endswith("\n") else source + "\n", origin,
                             tuple(log.items))
    repaired = _from_prose(source, log)
    if repaired is None:
        return None
    if not _compiles(repaired):
        repaired = _drop_bad_lines(repaired, log)
    return ExtractedCode(repaired, origin, tuple(log.items))
