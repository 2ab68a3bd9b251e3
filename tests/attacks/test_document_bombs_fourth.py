"""Document bombs, fourth round: other encodings (UTF-16 both ways, with and without a
byte-order mark, UTF-32; JSON, a notebook and LaTeX in UTF-16), LaTeX macro bombs (a macro that
doubles itself, catcode changes, an unclosed verbatim, 1.5 MB of comment), Markdown of a
2,000-column table, 100,000 headings, 100,000 nested HTML blocks, an unclosed fence and
50,000 link references, notebooks whose source is 400,000 one-letter strings or carries a
gzip bomb as an attachment or 20,000 output formats, nbformat 3 and 999 and cells that are
no list, JSON with a key repeated 100,000 times, 100,000 answers, a 1 MB key or 200,000
escaped NULs, ZIP and gzip files named as documents, text full of terminal escapes or
direction overrides. Each is taken or refused 4xx, /healthz answers within a second while they
are read, and whatever is taken is graded without a grader_error."""

from __future__ import annotations

import base64
import gzip
import json

from tests.attacks.conftest import Served
from tests.attacks.test_document_bombs import upload_at_once
from tests.attacks.test_document_bombs_deep import until_final
from tests.support.pace import stretched

CELL = {"cell_type": "markdown", "metadata": {}, "source": "B1: d_head = 64"}


def _notebook(cells: list[object], **top: object) -> str:
    return json.dumps({"cells": cells, "nbformat": 4, "nbformat_minor": 5, "metadata": {},
                       **top})


def _bombs() -> dict[str, tuple[str, bytes, str]]:
    gz = base64.b64encode(gzip.compress(b"\0" * 50_000_000)).decode()
    mimes = {"cell_type": "code", "execution_count": 1, "metadata": {}, "source": "x",
             "outputs": [{"output_type": "display_data", "metadata": {},
                          "data": {f"text/x{i}": "B1: 65" for i in range(20_000)}}]}
    answers = json.dumps({"answers": {"b1.d_head": "64"}})
    row = b"|" + b"1|" * 2000 + b"\n"
    return {
        "UTF-16 LE text with a mark": ("a.txt", "\ufeffB1: d_head = 64\n".encode("utf-16-le"),
                                       "text/plain"),
        "UTF-16 BE text with a mark": ("a.txt", "\ufeffB1: d_head = 64\n".encode("utf-16-be"),
                                       "text/plain"),
        "UTF-16 text without a mark": ("a.txt", "B1: d_head = 64\n".encode("utf-16-le"),
                                       "text/plain"),
        "UTF-32 text with a mark": ("a.txt", "\ufeffB1: d_head = 64\n".encode("utf-32"),
                                    "text/plain"),
        "JSON in UTF-16": ("a.json", answers.encode("utf-16"), "application/json"),
        "a notebook in UTF-16": ("a.ipynb", _notebook([CELL]).encode("utf-16"),
                                 "application/x-ipynb+json"),
        "LaTeX in UTF-16": ("a.tex", "\\section{B1} d\\_head = 64".encode("utf-16"),
                            "application/x-tex"),
        "a LaTeX macro that doubles itself": (
            "a.tex", b"\\def\\a{\\a\\a}\\a\n\\newcommand{\\b}{\\b\\b}\\b\nB1: 64\n"
            + b"\\def\\x{\\y\\y\\y\\y\\y\\y\\y\\y\\y\\y}" * 1000, "application/x-tex"),
        "LaTeX catcode changes": ("a.tex", b"\\catcode`\\{=12 \\catcode`\\}=12 {{{{ B1: 64 "
                                  b"\\csname" * 200, "application/x-tex"),
        "an unclosed LaTeX verbatim": ("a.tex", b"\\begin{verbatim}" + b"x" * 1_000_000,
                                       "application/x-tex"),
        "1.5 MB of LaTeX comment": ("a.tex", b"%" * 1_500_000 + b"\nB1: 64", "application/x-tex"),
        "a Markdown table of 2,000 columns": (
            "a.md", b"B1: 64\n" + row + b"|" + b"-|" * 2000 + b"\n" + row * 30, "text/markdown"),
        "100,000 Markdown headings": ("a.md", b"# B1\n" * 100_000, "text/markdown"),
        "100,000 nested HTML blocks": ("a.md", b"<div>" * 100_000 + b"B1: 64", "text/markdown"),
        "an unclosed Markdown fence": ("a.md", b"```\n" + b"B1: 64\n" * 200_000,
                                       "text/markdown"),
        "50,000 Markdown link references": (
            "a.md", b"".join(b"[%d]: http://x/%d\n" % (i, i) for i in range(50_000))
            + b"B1: 64", "text/markdown"),
        "a cell source of 400,000 strings": (
            "a.ipynb", _notebook([{**CELL, "source": ["B"] * 400_000}]).encode(),
            "application/x-ipynb+json"),
        "a gzip bomb attached to a cell": (
            "a.ipynb", _notebook([{**CELL, "attachments": {"a.gz": {"application/gzip": gz}}}])
            .encode(), "application/x-ipynb+json"),
        "20,000 output formats": ("a.ipynb", _notebook([CELL, mimes]).encode(),
                                  "application/x-ipynb+json"),
        "nbformat 3 worksheets": ("a.ipynb", json.dumps({
            "nbformat": 3, "nbformat_minor": 0, "metadata": {}, "worksheets": [
                {"cells": [{"cell_type": "markdown", "source": "B1: 64"}] * 3000}]}).encode(),
            "application/x-ipynb+json"),
        "nbformat 999": ("a.ipynb", _notebook([CELL], nbformat=999).encode(),
                         "application/x-ipynb+json"),
        "cells that are no list": ("a.ipynb", json.dumps({"cells": {"a": 1}, "nbformat": 4,
                                                          "metadata": {}}).encode(),
                                   "application/x-ipynb+json"),
        "a JSON key repeated 100,000 times": (
            "a.json", b'{"answers": {"b1.d_head": "64"' + b', "b1.d_head": "1"' * 100_000
            + b"}}", "application/json"),
        "100,000 JSON answers": ("a.json", json.dumps({"answers": {
            f"k{i}": "1" for i in range(100_000)}}).encode(), "application/json"),
        "a 1 MB JSON key": ("a.json", json.dumps({"answers": {"b" * 1_000_000: "1",
                                                              "b1.d_head": "64"}}).encode(),
                            "application/json"),
        "200,000 escaped NULs": ("a.json", b'{"answers": {"b1.d_head": "' + b"\\u0000" * 200_000
                                 + b'"}}', "application/json"),
        "a ZIP named .ipynb": ("a.ipynb", b"PK\x03\x04" + b"\0" * 1000,
                               "application/x-ipynb+json"),
        "gzip named .json": ("a.json", gzip.compress(answers.encode()), "application/json"),
        "terminal escapes": ("a.txt", b"B1: d_head = 6\x084\x1b[2J\x07 \x0c\x0b64\r" * 1000,
                             "text/plain"),
        "direction overrides and tags": (
            "a.txt", "B1: d_head = \u202e46\u202c \u2066 64 \u2069 \U000e0041 ".encode() * 200,
            "text/plain"),
    }


def test_fourth_round_bombs_are_answered_graded_and_healthz_stays_fast(served: Served) -> None:
    bombs = _bombs()
    limit = stretched(1.0)
    answers, slowest = upload_at_once(served, bombs, "fourth")
    broken = {}
    for name, (status, text) in answers.items():
        if status != 202:
            continue
        final = until_final(served, json.loads(text)["id"], seconds=300)
        errors = [i["id"] for i in final["items"]  # type: ignore[attr-defined]
                  if i["status"] == "grader_error"]
        if final["status"] in ("queued", "grading", "grader_error") or errors:
            broken[name] = (final["status"], errors)
    assert not broken, broken
    assert slowest < limit, (slowest, limit)
