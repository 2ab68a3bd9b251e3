"""Code as students hand it in: LaTeX code environments (their begin and end lines made a
correct program a SyntaxError at `\\end{lstlisting}`), Markdown fences labelled `py3` or
`Python` (read as prose, the closing fence was a SyntaxError), JSON answers keyed by a code
item's id (the `item: ` prefix made `import numpy as np` prose)."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.code.extract import extract_code
from graders.documents import read_submission
from graders.rubric import parse_rubric

BODIES = [
    "import numpy as np\n\ndef softmax(x, axis=-1):\n"
    "    e = np.exp(x - x.max(axis=axis, keepdims=True))\n"
    "    return e / e.sum(axis=axis, keepdims=True)",
    "def causal_mask(n):\n    return np.tril(np.ones((n, n), dtype=bool))",
    "EPS = 1e-5\n\ndef layer_norm(x, gamma, beta, eps=EPS):\n"
    "    m = x.mean(-1, keepdims=True)\n"
    "    return gamma * (x - m) / np.sqrt(x.var(-1, keepdims=True) + eps) + beta",
]
OPENERS = [
    ("\\begin{lstlisting}", "\\end{lstlisting}"),
    ("\\begin{lstlisting}[language=Python, caption={My code}]", "\\end{lstlisting}"),
    ("  \\begin{verbatim}", "\\end{verbatim}"),
    ("\\begin{minted}{python}", "\\end{minted}"),
    ("\\begin{minted}[linenos]{python3}", "\\end{minted}"),
    ("\\begin{Verbatim}[fontsize=\\small]", "\\end{Verbatim}"),
    ("\\begin{pycode}", "\\end{pycode}"),
]
PROSE = ["", "\\section*{Question 2}", "Here is my implementation:",
         "It subtracts the maximum, so $e^{x}$ never overflows.\\\\"]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(BODIES), st.sampled_from(OPENERS),
                          st.sampled_from(PROSE)), min_size=1, max_size=3),
       st.sampled_from(PROSE))
def test_latex_code_environments_run_their_bodies_only(
        blocks: list[tuple[str, tuple[str, str], str]], tail: str) -> None:
    text = "\\documentclass{article}\n\\begin{document}\n"
    for body, (begin, end), prose in blocks:
        text += f"{prose}\n{begin}\n{body}\n{end}\n"
    text += tail + "\n\\end{document}\n"
    code = extract_code(text)
    assert code is not None
    compile(code.source, "<answer>", "exec")
    assert code.source.strip() == "\n\n".join(body for body, _, _ in blocks).strip()
    assert "\\begin" not in code.source and "\\end" not in code.source


def test_a_listing_in_another_language_is_left_out() -> None:
    text = ("\\begin{lstlisting}[language=C]\nint main() { return 0; }\n\\end{lstlisting}\n"
            "\\begin{lstlisting}[language=Python]\n" + BODIES[1] + "\n\\end{lstlisting}\n")
    code = extract_code(text)
    assert code is not None and code.source.strip() == BODIES[1]
    assert any("LaTeX code environment" in n for n in code.normalisations)


def test_an_unclosed_environment_is_read_as_typed_code() -> None:
    code = extract_code("\\begin{verbatim}\n" + BODIES[1] + "\n")
    assert code is not None and code.source.strip() == BODIES[1]
    assert not any("LaTeX" in n for n in code.normalisations)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["python", "Python", "py", "py3", "python3", "PYTHON3", "ipython3",
                        "ipython", "numpy", ""]),
       st.sampled_from(["```", "~~~"]), st.lists(st.sampled_from(BODIES), min_size=1,
                                                 max_size=3))
def test_fences_labelled_as_any_python_run_their_bodies(language: str, fence: str,
                                                         bodies: list[str]) -> None:
    text = "".join(f"## Q{i}\n\n{fence}{language}\n{b}\n{fence}\n\nSome words.\n\n"
                   for i, b in enumerate(bodies, 1))
    code = extract_code(text)
    assert code is not None and code.source.strip() == "\n\n".join(bodies)


def test_fences_in_another_language_are_not_run() -> None:
    text = f"```bash\npip install numpy\n```\n\n```py3\n{BODIES[1]}\n```\n"
    code = extract_code(text)
    assert code is not None and code.source.strip() == BODIES[1]


CODE_RUBRIC = parse_rubric("""
slug: keyed
title: Keyed by item
questions:
  - id: Q1
    answer_kind: code
    items:
      - {id: q1.values, points: 1, grader: code, config: {battery: sdpa.yaml, check: output}}
      - {id: q1.shape, points: 1, grader: code, config: {battery: sdpa.yaml, check: weights}}
  - id: Q2
    items:
      - {id: q2.heads, points: 1, grader: numeric, config: {expected: 8}}
""", rubric_dir=Path(__file__).resolve().parents[3] / "docs" / "examples" / "batched-attention"
).rubric


@given(st.sampled_from(["q1.values", "Q1.values", "q1.shape"]), st.sampled_from(BODIES))
def test_a_program_keyed_by_a_code_item_is_the_program(key: str, body: str) -> None:
    raw = json.dumps({"answers": {key: body, "q1.shape": body, "q2.heads": "8 heads"}})
    parsed = read_submission(raw.encode(), "s.json", None, CODE_RUBRIC)
    assert parsed.answers["Q1"].text.strip() == body
    assert "q2.heads: 8 heads" in parsed.answers["Q2"].text
