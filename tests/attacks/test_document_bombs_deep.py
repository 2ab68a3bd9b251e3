"""Document bombs, third round: compressed and structural PDF bombs (a content stream that
inflates to 200 MB, an object stream claiming a million objects, a page tree that contains
itself, an xref chain that loops), notebooks of many cells or one huge output, LaTeX and
Markdown nested tens of thousands deep, LaTeX asking for a file of the server, and programs
whose source nests or chains deep enough to break a recursive reader. Each upload is taken or
refused with a 4xx (or a 503 saying when to come back), /healthz answers within a second
meanwhile, and every upload taken is graded without a grader_error (a bug of ours, not the
student's) and shows no byte of a server file."""

from __future__ import annotations

import json
import time
import zlib
from functools import cache

from tests.app.conftest import Api
from tests.attacks.conftest import Served
from tests.attacks.test_document_bombs import upload_at_once
from tests.support.pace import stretched


def _pdf(objects: list[bytes], root: int = 1, extra_trailer: bytes = b"") -> bytes:
    out = b"%PDF-1.5\n"
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += (b"trailer\n<< /Size %d /Root %d 0 R " % (len(objects) + 1, root) + extra_trailer
            + b">>\nstartxref\n%d\n%%%%EOF\n" % xref)
    return out


def _stream(data: bytes, extra: bytes = b"") -> bytes:
    return b"<< /Length %d %s>>\nstream\n" % (len(data), extra) + data + b"\nendstream"


def _page(contents: int) -> bytes:
    return (b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font "
            b"<< /F1 3 0 R >> >> /Contents %d 0 R >>" % contents)


CATALOG = b"<< /Type /Catalog /Pages 2 0 R >>"
FONT = b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


@cache
def _inflating() -> bytes:
    """A content stream of 200 MB of text-showing operators, 200 KB deflated."""
    packer = zlib.compressobj(9)
    chunk = b"BT /F1 12 Tf 72 720 Td (B1: 64) Tj ET\n" * 27_000  # ~1 MB
    body = b"".join(packer.compress(chunk) for _ in range(200)) + packer.flush()
    return _pdf([CATALOG, b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>", FONT, _page(5),
                 _stream(body, b"/Filter /FlateDecode ")])


def _object_stream() -> bytes:
    header = b" ".join(b"%d %d" % (n + 10, n * 4) for n in range(2000))
    data = header + b" " + b"1 0 " * 2000
    return _pdf([CATALOG, b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>", FONT, _page(5),
                 _stream(b"BT /F1 12 Tf 72 720 Td (B1: 64) Tj ET"),
                 _stream(zlib.compress(data), b"/Type /ObjStm /N 1000000 /First %d "
                         b"/Filter /FlateDecode " % (len(header) + 1))])


def _page_cycle() -> bytes:
    return _pdf([CATALOG, b"<< /Type /Pages /Kids [2 0 R 4 0 R] /Count 1000000 >>", FONT,
                 _page(5), _stream(b"BT /F1 12 Tf 72 720 Td (B1: 64) Tj ET")])


def _xref_loop() -> bytes:
    pdf = _pdf([CATALOG, b"<< /Type /Pages /Kids [4 0 R] /Count 1 >>", FONT, _page(5),
                _stream(b"BT /F1 12 Tf 72 720 Td (B1: 64) Tj ET")])
    start = pdf.rindex(b"startxref\n") + len(b"startxref\n")
    xref = int(pdf[start:pdf.index(b"\n", start)])
    return pdf.replace(b"/Root 1 0 R ", b"/Root 1 0 R /Prev %d " % xref)


def _nested_arrays() -> bytes:
    return _pdf([CATALOG, b"<< /Type /Pages /Kids [4 0 R] /Count 1 /X " + b"[" * 50_000
                 + b"]" * 50_000 + b" >>", FONT, _page(5),
                 _stream(b"BT /F1 12 Tf 72 720 Td (B1: 64) Tj ET")])


def _notebook(cells: list[dict[str, object]]) -> bytes:
    return json.dumps({"cells": cells, "nbformat": 4, "nbformat_minor": 5,
                       "metadata": {}}).encode()


CELL = {"cell_type": "markdown", "metadata": {}, "source": "B1: 64"}
HUGE_OUTPUT = {"cell_type": "code", "metadata": {}, "execution_count": 1,
               "source": "print('B1: 64')", "outputs": [
                   {"output_type": "stream", "name": "stdout", "text": "B1: 64\n" * 250_000}]}
DEEP = 30_000


def _answer(question: str, text: str) -> bytes:
    return json.dumps({"answers": {question: text}}).encode()


BOMBS: dict[str, tuple[str, bytes | None, str]] = {
    "a PDF stream inflating to 200 MB": ("a.pdf", None, "application/pdf"),
    "a PDF object stream claiming a million objects": ("a.pdf", _object_stream(),
                                                       "application/pdf"),
    "a PDF page tree containing itself": ("a.pdf", _page_cycle(), "application/pdf"),
    "a PDF whose xref chain loops": ("a.pdf", _xref_loop(), "application/pdf"),
    "a PDF dictionary nested 50,000 deep": ("a.pdf", _nested_arrays(), "application/pdf"),
    "a notebook of 20,000 cells": ("a.ipynb", _notebook([CELL] * 20_000),
                                   "application/x-ipynb+json"),
    "a notebook with a 1.7 MB output": ("a.ipynb", _notebook([CELL, HUGE_OUTPUT]),
                                        "application/x-ipynb+json"),
    "LaTeX environments nested 30,000 deep": (
        "a.tex", (b"\\begin{itemize}\\item " * DEEP + b"B1: 64" + b"\\end{itemize}" * DEEP),
        "application/x-tex"),
    "LaTeX braces nested 300,000 deep": ("a.tex", b"{" * 300_000 + b"B1: 64" + b"}" * 300_000,
                                         "application/x-tex"),
    "LaTeX including a server file": (
        "a.tex", b"\\input{/etc/passwd}\n\\include{/etc/hostname}\n\\verbatiminput{/etc/passwd}"
        b"\n\\lstinputlisting{/etc/passwd}\nB1: 64\n", "application/x-tex"),
    "Markdown lists nested 300,000 deep on one line": ("a.md", b"- " * 300_000 + b"B1: 64",
                                                       "text/markdown"),
    "Markdown lists nested 1,000 deep by indentation": (
        "a.md", "".join("  " * n + "- B1: 64\n" for n in range(1000)).encode(),
        "text/markdown"),
    "Markdown emphasis of 300,000 stars": ("a.md", b"B1: 64 " + b"*" * 300_000 + b"a",
                                           "text/markdown"),
    "Markdown of 100,000 unclosed links": ("a.md", b"B1: 64\n" + b"[a](" * 100_000,
                                           "text/markdown"),
    "an unclosed HTML comment over 1 MB": ("a.md", b"B1: 64\n<!--" + b"x" * 1_000_000,
                                           "text/markdown"),
    "100,000 answer labels": ("a.txt", b"B1: 64\n" * 100_000, "text/plain"),
    "a program of 100,000 chained additions": (
        "a.json", _answer("B3", "x = " + "1+" * 100_000 + "1\ndef attention(Q, K, V):\n"
                          "    return Q\n"), "application/json"),
    "a program nested 10,000 calls deep": (
        "a.json", _answer("B3", "x = " + "f(" * 10_000 + ")" * 10_000 + "\n"),
        "application/json"),
    "a program of one 1 MB string": (
        "a.json", _answer("B3", "s = '" + "a" * 1_000_000 + "'\ndef attention(Q, K, V):\n"
                          "    return Q\n"), "application/json"),
}


def until_final(target: Api | Served, sid: int, seconds: float = 120) -> dict[str, object]:
    deadline = time.monotonic() + seconds
    while True:
        body: dict[str, object] = target.client.get(f"/api/v1/submissions/{sid}",
                                                    headers=target.auth("prof")).json()
        if body["status"] not in ("queued", "grading") or time.monotonic() > deadline:
            return body
        time.sleep(0.3)


def test_deep_bombs_are_answered_graded_and_healthz_stays_under_a_second(served: Served) -> None:
    inflating = _inflating()  # made before the clock starts
    bombs = {name: (filename, raw or inflating, content_type)
             for name, (filename, raw, content_type) in BOMBS.items()}
    limit = stretched(1.0)
    answers, slowest = upload_at_once(served, bombs, "deep")
    broken = {}
    for name, (status, text) in answers.items():
        if status != 202:
            continue
        final = until_final(served, json.loads(text)["id"])
        shown = json.dumps(final)
        errors = [i["id"] for i in final["items"]  # type: ignore[attr-defined]
                  if i["status"] == "grader_error"]
        if final["status"] in ("queued", "grading", "grader_error") or errors or \
                "root:x:0" in shown:
            broken[name] = (final["status"], errors)
    assert not broken, broken
    assert slowest < limit, (slowest, limit)
    print({n: a[0] for n, a in answers.items()}, f"slowest /healthz {slowest:.3f} s")
