"""Recognise an upload's format and turn it into text, rejecting what cannot be read."""

from __future__ import annotations

import io
import json
import re
import warnings
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

from graders.documents.edition import document_edition
from graders.documents.latex_source import typeset_text
from graders.documents.markdown_source import rendered_text
from graders.documents.model import DocumentFormat, InvalidDocument, NeedsReader

if TYPE_CHECKING:  # the notebook renderer is imported by the first notebook read
    from graders.documents.notebook import Cell

_BY_EXTENSION: dict[str, DocumentFormat] = {
    ".json": "json",
    ".txt": "text",
    ".text": "text",
    ".md": "markdown",
    ".markdown": "markdown",
    ".tex": "latex",
    ".latex": "latex",
    ".py": "python",
    ".ipynb": "notebook",
    ".pdf": "pdf",
}
# The file name endings an upload may have (a page's file picker offers these).
ACCEPTED_EXTENSIONS: tuple[str, ...] = tuple(_BY_EXTENSION)

_BY_CONTENT_TYPE: dict[str, DocumentFormat] = {
    "application/json": "json",
    "text/json": "json",
    "text/plain": "text",
    "text/markdown": "markdown",
    "text/x-markdown": "markdown",
    "text/x-tex": "latex",
    "application/x-tex": "latex",
    "text/x-latex": "latex",
    "application/x-latex": "latex",
    "text/x-python": "python",
    "text/x-script.python": "python",
    "application/x-python-code": "python",
    "application/x-ipynb+json": "notebook",
    "application/pdf": "pdf",
}

# Content types that say nothing about the format: the bytes decide.
_GENERIC_CONTENT_TYPES = frozenset({"", "application/octet-stream", "binary/octet-stream"})


@dataclass(frozen=True)
class DecodedDocument:
    format: DocumentFormat
    text: str  # the document as text (for JSON: the raw JSON text)
    data: Any = None  # the parsed JSON object for json and notebook uploads
    cells: tuple[Cell, ...] = ()  # a notebook's cells in `text`
    # The edition a JSON submission or a notebook declares (graders.documents.edition).
    handout: str | None = None


def _declared(filename: str | None, content_type: str | None) -> DocumentFormat | None:
    if filename:
        suffix = PurePath(filename).suffix.lower()
        if suffix in _BY_EXTENSION:
            return _BY_EXTENSION[suffix]
        if suffix:
            raise InvalidDocument(
                f"unsupported file type {suffix!r}: upload .json, .txt, .md, .tex, .py, "
                ".ipynb or a PDF with a text layer"
            )
    if content_type:
        base = content_type.split(";", 1)[0].strip().lower()
        if base in _BY_CONTENT_TYPE:
            return _BY_CONTENT_TYPE[base]
        if base.startswith("text/"):
            return "text"
        if base not in _GENERIC_CONTENT_TYPES:
            raise InvalidDocument(f"unsupported content type {base!r}")
    return None


def decode_text(raw: bytes) -> str:
    """UTF-8 (or UTF-16 with a byte-order mark) text without NUL bytes, else InvalidDocument."""
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            text = raw.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise InvalidDocument(f"not valid UTF-16 text (byte {exc.start})") from exc
    else:
        if b"\x00" in raw:
            raise InvalidDocument(
                f"binary data (NUL byte at offset {raw.index(0)}), not a text document"
            )
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise InvalidDocument(
                f"not UTF-8 text: undecodable byte 0x{raw[exc.start]:02x} at offset {exc.start}"
            ) from exc
    if "\x00" in text:
        raise InvalidDocument("binary data (NUL character), not a text document")
    return text.replace("\r\n", "\n").replace("\r", "\n")


# The most digits an integer in a JSON document may have: an answer is never longer, and int()
# of a longer string is quadratic (Python refuses past 4,300 digits with a ValueError).
MAX_INT_DIGITS = 100
# The most cells a notebook may have: a long course notebook has a few hundred, and reading one
# (nbformat's validation, then locating answers in every cell) costs about 0.1 ms a cell twice
# over, once in the server's reader and once in the grading process.
MAX_CELLS = 5_000
# A lone surrogate ("\ud800" in JSON) is no character: no UTF encoder, database driver or cache
# encoder takes it, so it is read as U+FFFD like an undecodable byte in a text document.
_SURROGATE = re.compile("[\ud800-\udfff]")


def _bounded_int(digits: str) -> int:
    if len(digits.lstrip("-")) > MAX_INT_DIGITS:
        raise InvalidDocument(f"a number with more than {MAX_INT_DIGITS} digits")
    return int(digits)


def _load_json(text: str, what: str, advice: str = "") -> Any:
    """`what` names the file for its author ("the notebook"); `advice` says what to do when it
    is not JSON (a notebook cut short, or saved as something else, is re-saved in Jupyter)."""
    try:
        data = json.loads(text, parse_int=_bounded_int)
    except json.JSONDecodeError as exc:
        raise InvalidDocument(
            f"{what} is not valid JSON ({exc.msg} at line {exc.lineno}, column {exc.colno})"
            f"{advice}"
        ) from exc
    except RecursionError as exc:
        raise InvalidDocument(f"{what} has arrays or objects nested too deeply") from exc
    # a lone surrogate can only come from a \\u escape: UTF-8 and UTF-16 text decoding refuse one
    return _without_surrogates(data) if "\\u" in text else data


def _without_surrogates(data: Any) -> Any:
    """The same JSON value with every lone surrogate in its strings (keys too) as U+FFFD.
    Iterative: the depth json.loads accepted is not re-spent on the call stack."""
    def fix(value: Any) -> Any:
        return _SURROGATE.sub("\ufffd", value) if isinstance(value, str) else value

    root: list[Any] = [fix(data)]
    stack: list[tuple[Any, Any]] = [(root, 0)]
    while stack:
        holder, key = stack.pop()
        value = holder[key]
        if isinstance(value, dict):
            fixed = {fix(k): v for k, v in value.items()}
            holder[key] = fixed
            stack.extend((fixed, k) for k in fixed)
        elif isinstance(value, list):
            stack.extend((value, i) for i in range(len(value)))
        else:
            holder[key] = fix(value)
    return root[0]


def check_answers_shape(data: Any) -> None:
    """`{"student_id"?: str, "handout"?: str, "answers": {str: str | number | list}}`, else
    InvalidDocument (`handout`: the edition, read by graders.documents.edition).

    Top-level keys starting with `_` are metadata (where a sample came from, an LMS's ids):
    accepted and never read; any other key is refused, as a misspelt "answers" would be."""
    if not isinstance(data, dict):
        raise InvalidDocument('JSON submission must be an object with an "answers" object')
    unknown = sorted(k for k in set(data) - {"student_id", "handout", "answers"}
                     if not k.startswith("_"))
    if unknown:
        raise InvalidDocument(
            f"JSON submission has unexpected top-level keys: {', '.join(unknown)}"
        )
    student = data.get("student_id")
    if student is not None and not isinstance(student, str):
        raise InvalidDocument('"student_id" must be a string')
    answers = data.get("answers")
    if not isinstance(answers, dict):
        raise InvalidDocument('JSON submission needs an "answers" object')
    if not answers:
        raise InvalidDocument('"answers" is empty')
    for key, value in answers.items():
        if not key.strip():
            raise InvalidDocument('"answers" has an empty key')
        if not _is_answer_value(value):
            raise InvalidDocument(
                f'answers["{key}"] must be a string, a number or a list of those, '
                f"not {type(value).__name__}"
            )


def _is_answer_value(value: Any, depth: int = 0) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, str | int | float):
        return True
    if isinstance(value, list) and depth < 2:
        return all(_is_answer_value(v, depth + 1) for v in value)
    return False


def _notebook_text(text: str) -> tuple[str, Any, tuple[Cell, ...]]:
    import nbformat
    from nbformat.warnings import MissingIDFieldWarning

    from graders.documents.notebook import render_notebook

    # A notebook saved by a Jupyter before cell ids (nbformat 4.4 and earlier, or written by
    # hand) is read as it stands: nbformat's warning about the missing ids is for whoever saves
    # the file, not for the instructor grading it (it went to the CLI's output, once a notebook).
    warnings.filterwarnings("ignore", category=MissingIDFieldWarning)

    data = _load_json(text, "the notebook", "; open it in Jupyter, save it and upload the saved "
                      ".ipynb file again")
    if not isinstance(data, dict) or "cells" not in data:
        raise InvalidDocument("not a Jupyter notebook: no cells")
    if isinstance(data["cells"], list) and len(data["cells"]) > MAX_CELLS:
        raise InvalidDocument(f"the notebook has {len(data['cells'])} cells; at most "
                              f"{MAX_CELLS} are read")
    try:
        notebook = nbformat.reads(text, as_version=4)  # type: ignore[no-untyped-call]
    except RecursionError as exc:  # its validator spends several frames per level of nesting
        raise InvalidDocument("the notebook has arrays or objects nested too deeply") from exc
    except Exception as exc:  # nbformat raises several unrelated types for bad files
        raise InvalidDocument(f"not a readable Jupyter notebook: {exc}".splitlines()[0]) from exc
    rendered, cells = render_notebook(notebook.cells)
    return rendered, notebook, cells


def _pdf_text(raw: bytes, max_pages: int | None = None) -> str:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    from graders.documents.pdf_scripts import page_text

    try:
        reader = PdfReader(io.BytesIO(raw))
        if reader.is_encrypted:
            raise InvalidDocument("the PDF is encrypted; upload an unprotected copy")
        if max_pages is not None and len(reader.pages) > max_pages:
            raise InvalidDocument(
                f"the PDF has {len(reader.pages)} pages; at most {max_pages} are read"
            )
        pages = [page_text(page) for page in reader.pages]
    except InvalidDocument:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise InvalidDocument(f"not a readable PDF: {exc}".splitlines()[0]) from exc
    text = "\n\n".join(p.strip() for p in pages if p.strip())
    if not text.strip():
        raise InvalidDocument(
            "the PDF has no text layer (a scan or photo?); upload a PDF with selectable text "
            "or a text transcript"
        )
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _guess(raw: bytes) -> DocumentFormat:
    if raw.lstrip().startswith(b"%PDF"):
        return "pdf"
    head = raw.lstrip()[:1]
    if head == b"{":
        return "notebook" if b'"cells"' in raw and b'"nbformat"' in raw else "json"
    return "text"


def decode_document(
    raw: bytes, filename: str | None, content_type: str | None, max_pages: int | None = None,
    light_only: bool = False,
) -> DecodedDocument:
    """The upload as text (and its data, for JSON and notebooks), or InvalidDocument. With
    `light_only`, a PDF or a notebook raises NeedsReader before any of its parsing: only text
    and JSON (bounded in depth and digits) are read."""
    if not raw or not raw.strip():
        raise InvalidDocument("the upload is empty")
    declared = _declared(filename, content_type)
    fmt: DocumentFormat = declared if declared is not None else _guess(raw)
    if fmt != "pdf" and raw.lstrip().startswith(b"%PDF"):
        fmt = "pdf"  # a PDF uploaded as .txt is still a PDF
    if fmt == "pdf":
        if not raw.lstrip().startswith(b"%PDF"):
            raise InvalidDocument("declared as PDF but the bytes are not a PDF")
        if light_only:
            raise NeedsReader("pdf")
        return DecodedDocument("pdf", _pdf_text(raw, max_pages))
    if fmt == "notebook" and light_only:
        raise NeedsReader("notebook")
    text = decode_text(raw)
    if not text.strip():
        raise InvalidDocument("the upload contains only whitespace")
    if fmt == "json":
        data = _load_json(text, "the file")
        if isinstance(data, dict) and "cells" in data and "answers" not in data:
            if light_only:
                raise NeedsReader("notebook")
            notebook_text, notebook, cells = _notebook_text(text)
            return DecodedDocument("notebook", notebook_text, notebook, cells,
                                   document_edition("notebook", notebook))
        check_answers_shape(data)
        return DecodedDocument("json", text, data, handout=document_edition("json", data))
    if fmt == "notebook":
        notebook_text, notebook, cells = _notebook_text(text)
        if not notebook_text.strip():
            raise InvalidDocument("the notebook has no non-empty cells")
        return DecodedDocument("notebook", notebook_text, notebook, cells,
                               document_edition("notebook", notebook))
    if _looks_binary(text):
        raise InvalidDocument("binary data (control characters), not a text document")
    if fmt == "latex":  # what TeX never typesets is no answer (blanked: offsets kept)
        text = typeset_text(text)
    elif fmt == "markdown":  # nor what a rendered page never shows (HTML comments)
        text = rendered_text(text)
    return DecodedDocument(fmt, text)


def _looks_binary(text: str) -> bool:
    sample = text[:4096]
    control = sum(1 for ch in sample if ord(ch) < 32 and ch not in "\n\t\f\v")
    return control > max(8, len(sample) // 100)
