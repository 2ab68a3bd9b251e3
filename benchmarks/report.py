"""Write one benchmark's section of docs/benchmarks.md, leaving the other sections alone."""

from __future__ import annotations

import platform
import re
from datetime import UTC, datetime
from pathlib import Path

DOC = Path(__file__).resolve().parent.parent / "docs" / "benchmarks.md"
HEADER = (
    "# Benchmarks\n\n"
    "Each section is written by the script it names (`python benchmarks/NAME.py`); ratios are\n"
    "measured side by side in one run because the machine is noisy.\n"
)


def machine() -> str:
    import os

    return f"{platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores"


def write_section(name: str, body: str) -> Path:
    """Replace (or append) the section `name` with `body` (Markdown)."""
    DOC.parent.mkdir(parents=True, exist_ok=True)
    text = DOC.read_text() if DOC.exists() else HEADER
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    block = (
        f"<!-- bench:{name} -->\n{body.rstrip()}\n\n"
        f"_Measured {stamp} on {machine()} by `benchmarks/{name}.py`._\n<!-- /bench:{name} -->"
    )
    tag = re.escape(name)
    pattern = re.compile(rf"<!-- bench:{tag} -->.*?<!-- /bench:{tag} -->", re.S)
    if pattern.search(text):
        text = pattern.sub(lambda _: block, text)
    else:
        text = f"{text.rstrip()}\n\n{block}\n"
    DOC.write_text(text)
    return DOC
