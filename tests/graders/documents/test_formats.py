from __future__ import annotations

import json

import nbformat
import pytest

from graders.documents import InvalidDocument, read_submission, sniff_format
from graders.rubric import BUNDLED_RUBRICS, load_rubric
from tests.graders.documents.pdf_fixture import make_pdf

RUBRIC = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric


@pytest.mark.parametrize(
    ("raw", "filename", "content_type", "expected"),
    [
        (b'{"answers": {"B1": "64"}}', "s.json", None, "json"),
        (b'{"answers": {"B1": "64"}}', None, "application/json", "json"),
        (b'{"answers": {"B1": "64"}}', None, None, "json"),
        (b"Q1 text", "s.txt", None, "text"),
        (b"# Q1\ntext", "s.md", None, "markdown"),
        (b"\\section{Q1}", "s.tex", None, "latex"),
        (b"def attention(Q, K, V):\n    pass\n", "s.py", None, "python"),
        (b"Q1 text", None, "text/plain; charset=utf-8", "text"),
        (b"Q1 text", None, None, "text"),
    ],
)
def test_formats_are_recognised(raw, filename, content_type, expected):
    assert sniff_format(raw, filename, content_type) == expected


@pytest.mark.parametrize(
    ("raw", "filename", "content_type", "message"),
    [
        (b"", "s.txt", None, "empty"),
        (b"   \n ", "s.txt", None, "empty"),
        (b"abc\x00def", "s.txt", None, "NUL byte at offset 3"),
        (b"caf\xe9 \xff", "s.txt", None, "not UTF-8"),
        (b'{"answers": {"B1": "64",}}', "s.json", None, "at line 1, column 25"),
        (b'{"answers": "64"}', "s.json", None, '"answers" object'),
        (b'["B1"]', "s.json", None, "must be an object"),
        (b'{"answers": {"B1": {"x": 1}}}', "s.json", None, 'answers["B1"]'),
        (b'{"answers": {"B1": true}}', "s.json", None, 'answers["B1"]'),
        (b'{"answers": {"B1": "64"}, "grade": 100}', "s.json", None, "unexpected top-level"),
        (b'{"student_id": 7, "answers": {"B1": "64"}}', "s.json", None, "student_id"),
        (b"PK\x03\x04", "s.docx", None, "unsupported file type '.docx'"),
        (b"\x89PNG", None, "image/png", "unsupported content type"),
        (b"not a pdf", "s.pdf", None, "not a PDF"),
        (b'{"cells": 3}', "s.ipynb", None, "notebook"),
    ],
)
def test_unreadable_uploads_get_a_clear_one_line_reason(raw, filename, content_type, message):
    with pytest.raises(InvalidDocument) as info:
        sniff_format(raw, filename, content_type)
    assert message in str(info.value)
    assert "\n" not in str(info.value)


def test_pdf_text_layer_goes_through_the_locator():
    raw = make_pdf(["Q1 d_head = 768 / 12 = 64", "Q2 softmax = [0.665, 0.245, 0.090]"])
    assert sniff_format(raw, "s.pdf", None) == "pdf"
    parsed = read_submission(raw, "scan.pdf", "application/pdf", RUBRIC)
    assert parsed.format == "pdf"
    # labelled Q1/Q2, but the content is part B's: order allows it, content decides
    assert parsed.answers["B1"].text == "d_head = 768 / 12 = 64"
    assert parsed.answers["B2"].text.startswith("softmax = [0.665")


def test_pdf_without_text_layer_is_refused_with_the_reason():
    with pytest.raises(InvalidDocument, match="no text layer"):
        sniff_format(make_pdf([]), "scan.pdf", None)


def _notebook() -> bytes:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("## B3\nMy attention:"),
        nbformat.v4.new_code_cell("import numpy as np\ndef attention(Q, K, V):\n    return Q, K"),
        nbformat.v4.new_markdown_cell("## B4"),
        nbformat.v4.new_code_cell("def masked_attention(Q, K, V):\n    mask = np.triu(Q)"),
    ]
    return nbformat.writes(nb).encode()


def test_notebook_cells_in_order_with_code_fenced():
    raw = _notebook()
    assert sniff_format(raw, "hw.ipynb", None) == "notebook"
    parsed = read_submission(raw, "hw.ipynb", None, RUBRIC)
    b3 = parsed.answers["B3"].text
    assert "```python\nimport numpy as np\ndef attention(Q, K, V):" in b3
    assert "masked_attention" not in b3
    assert "def masked_attention" in parsed.answers["B4"].text


def test_python_file_is_the_code_answer_for_every_code_question():
    raw = b"import numpy as np\n\ndef attention(Q, K, V):\n    return Q\n"
    parsed = read_submission(raw, "hw.py", None, RUBRIC)
    assert parsed.answers["B3"].method == "whole"
    assert parsed.answers["B3"].text == raw.decode()
    assert parsed.answers["B3"].confidence > parsed.answers["B4"].confidence


def test_json_keys_by_question_and_item_case_insensitively():
    raw = json.dumps({"student_id": "s1", "answers": {
        "b1.D_HEAD": 64, "B1.per_matrix": "589,824", "B2": [0.665, 0.245, 0.09],
        "a1": "XOR is not linearly separable", "Z9": "?"}}).encode()
    parsed = read_submission(raw, "s.json", None, RUBRIC)
    assert parsed.student_id == "s1"
    b1 = parsed.answers["B1"]
    assert b1.method == "json"
    assert dict(b1.parts) == {"b1.d_head": "64", "b1.per_matrix": "589,824"}
    assert "b1.d_head: 64" in b1.text
    assert parsed.answers["B2"].text == "[0.665, 0.245, 0.09]"
    assert parsed.answers["A1"].text.startswith("XOR")
    assert "A2" in parsed.missing
    assert any("Z9" in note for note in parsed.notes)
