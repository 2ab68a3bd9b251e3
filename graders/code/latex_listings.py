"""Code in a LaTeX answer: the bodies of its code environments (`lstlisting`, `verbatim`,
`minted`, pythontex's `pycode`, ...), in order. Their `\\begin{...}` and `\\end{...}` lines are
LaTeX, not Python: read as code they made a correct program a SyntaxError at `\\end{lstlisting}`.
An environment that declares another language (`language=C`, `\\begin{minted}{c}`) is left out.
"""

from __future__ import annotations

import re

from graders.code.fences import is_python

ENVIRONMENTS = ("lstlisting", "verbatim", "Verbatim", "minted", "pycode", "pyblock",
                "pyverbatim", "python", "code")
_BEGIN = re.compile(r"[ \t]{0,40}\\begin\{(" + "|".join(ENVIRONMENTS) + r")\*?\}")
_LANGUAGE = re.compile(r"language[ \t]{0,3}=[ \t]{0,3}\{?[ \t]{0,3}([\w+-]{0,20})")
_MINTED = re.compile(r"\{([\w+-]{0,20})\}")


def _language(environment: str, rest: str) -> str:
    """The language the begin line declares ("" when none)."""
    if environment == "minted":
        found = _MINTED.search(rest[rest.find("]") + 1:] if rest.startswith("[") else rest)
    else:
        found = _LANGUAGE.search(rest[:200])
    return found.group(1).lower() if found else ""


def latex_code_blocks(text: str) -> list[str]:
    """The body of every closed code environment whose language is Python or undeclared."""
    lines = text.split("\n")
    blocks: list[str] = []
    index = 0
    while index < len(lines):
        begin = _BEGIN.match(lines[index])
        if begin is None:
            index += 1
            continue
        environment = begin.group(1)
        end_mark = f"\\end{{{environment}"
        close = next((j for j in range(index + 1, len(lines)) if end_mark in lines[j]), None)
        if close is None:
            return blocks
        if is_python(_language(environment, lines[index][begin.end():])):
            blocks.append("\n".join(lines[index + 1:close]))
        index = close + 1
    return blocks
