"""Getting code out of answers, and saying exactly what was changed."""

from __future__ import annotations

import json

from graders.code.extract import extract_code

OCR = """3. Numpy -

Import numpy as np

def attention (Q, K, V):

$dk = Q.shape[-1]$

Scores = $Q @ K.T / (np.sqrt(dk))$

weights = $np.exp(scores) / np.sum(np.exp(scores), axis=-1, keepdims=True)$

~~out = 1~~ output = weights @ V

return output, weights.

= True
"""


def test_ocr_artefacts_are_repaired_and_listed() -> None:
    code = extract_code(OCR)
    assert code is not None
    assert code.source == (
        "import numpy as np\n\n"
        "def attention (Q, K, V):\n\n"
        "    dk = Q.shape[-1]\n\n"
        "    scores = Q @ K.T / (np.sqrt(dk))\n\n"
        "    weights = np.exp(scores) / np.sum(np.exp(scores), axis=-1, keepdims=True)\n\n"
        "    output = weights @ V\n\n"
        "    return output, weights\n")
    text = "\n".join(code.normalisations)
    for expected in ("lower-cased `Import` to `import`", "`$…$` math delimiters",
                     "struck-through text `out = 1`", "full stop ending `return output, weights`",
                     "read `Scores` as `scores`", "not Python: `= True`", "indentation",
                     "1 line(s) of prose"):
        assert expected in text, (expected, text)


def test_a_capitalised_name_used_capitalised_elsewhere_is_kept() -> None:
    code = extract_code("Import numpy as np\nScores = 1\nprint(Scores)\nscores = 2\n$x = 1$\n")
    assert code is not None
    assert "Scores = 1" in code.source


def test_a_python_file_runs_unchanged() -> None:
    source = "import numpy as np\n\ndef attention(Q, K, V):\n    return Q, K  # $not math$\n"
    code = extract_code(source)
    assert code is not None and code.source == source and code.normalisations == ()


def test_fenced_blocks_are_joined_in_order_and_prose_ignored() -> None:
    text = ("Here is my answer.\n\n```python\nimport numpy as np\n```\n\nThen:\n\n"
            "~~~py\ndef f(x):\n    return np.sum(x)\n~~~\n\n```text\nnot code\n```\n")
    code = extract_code(text)
    assert code is not None
    assert code.source == "import numpy as np\n\ndef f(x):\n    return np.sum(x)\n"
    assert code.origin == "code blocks"


def test_typed_code_with_a_syntax_error_is_not_repaired() -> None:
    code = extract_code("```python\ndef f(x)\n    return x\n```")
    assert code is not None and code.source == "def f(x)\n    return x\n"


def test_notebook_cells_in_order_with_magics_skipped() -> None:
    notebook = {"cells": [
        {"cell_type": "markdown", "source": ["# B3"]},
        {"cell_type": "code", "source": ["%matplotlib inline\n", "import numpy as np\n"]},
        {"cell_type": "code", "source": "!pip install numpy\ndef f(x):\n    return x\n"},
    ]}
    code = extract_code(json.dumps(notebook))
    assert code is not None
    assert code.source == "import numpy as np\n\ndef f(x):\n    return x\n"
    assert any("magic `%matplotlib inline`" in n for n in code.normalisations)
    assert any("2 code cells" in n for n in code.normalisations)


def test_json_string_and_code_field() -> None:
    code = extract_code(json.dumps("def f(x):\n    return x\n"))
    assert code is not None and code.source == "def f(x):\n    return x\n"
    code = extract_code(json.dumps({"code": "def g():\n    return 1"}))
    assert code is not None and code.source == "def g():\n    return 1\n"


def test_indented_markdown_block() -> None:
    text = "My function:\n\n    def f(x):\n        return x * 2\n\nThat is all.\n"
    code = extract_code(text)
    assert code is not None and code.source == "def f(x):\n    return x * 2\n"


def test_a_missing_colon_in_handwriting_is_added() -> None:
    code = extract_code("def f(x)\nreturn x\n")
    assert code is not None
    assert code.source == "def f(x):\n    return x\n"
    assert any("missing colon" in n for n in code.normalisations)


def test_prose_only_has_no_code() -> None:
    assert extract_code("Attention weights are a softmax of the scores.") is None


def test_typography_from_ocr_is_undone() -> None:
    text = "def f(d\\_k):\n$return d\\_k \u2212 1$\n"
    code = extract_code(text)
    assert code is not None
    assert code.source == "def f(d_k):\n    return d_k - 1\n"
    assert any("LaTeX escape" in n for n in code.normalisations)
    assert any("typographic minus" in n for n in code.normalisations)
