"""Code in LaTeX answers: the bodies of its code environments run, their begin and end lines
never do (they made a correct program a SyntaxError at `\\end{lstlisting}`)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.code.extract import extract_code

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
