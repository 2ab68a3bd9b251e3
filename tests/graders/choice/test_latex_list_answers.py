"""A quiz answered in a LaTeX list (trial 8: `\\begin{enumerate} \\item[(a)] B \\item[(b)]
$16{,}000$ \\item[(c)] B and C \\end{enumerate}`): the part markers stand in the items' optional
arguments, or a list of bare `\\item`s counts the parts. Before, no marker was found (`(a)` after
`[`), each choice item read the whole list and went to review at 0 ("is none of the choices
offered")."""

from __future__ import annotations

from decimal import Decimal

from hypothesis import given, settings
from hypothesis import strategies as st

from graders.documents.submission import read_submission
from graders.engine import grade_submission
from graders.results import ItemResult, Status
from tests.graders.choice.test_block_answers import RUBRIC

_FORMS = ("[({})]", "[{})]", "[{}.]", "")
_LABELS = ("a", "b", "c")


@st.composite
def _lists(draw: st.DrawFn) -> tuple[str, dict[str, Decimal]]:
    form = draw(st.sampled_from(_FORMS))
    env = draw(st.sampled_from(["enumerate", "itemize", "enumerate*"]))
    scale = draw(st.sampled_from(["B", "C", "B) sqrt(d_k)"]))
    masks = draw(st.sampled_from(["A, C, E", "A, C and E", "A, C", "A, B"]))
    name = draw(st.sampled_from(["softmax", "sigmoid"]))
    indent = draw(st.sampled_from(["", "  ", "\t"]))
    one_line = draw(st.booleans())
    items = [f"\\item{form.format(label)} {part}" if form else f"\\item {part}"
             for label, part in zip(_LABELS, (scale, masks, name), strict=True)]
    body = (" ".join(items) if one_line else "\n".join(indent + i for i in items))
    text = (f"\\documentclass{{article}}\n\\begin{{document}}\n\\section*{{Question 6}}\n"
            f"\\begin{{{env}}}\n{body}\n\\end{{{env}}}\n\\end{{document}}\n")
    right = {"A, C, E": 3, "A, C and E": 3, "A, C": 2, "A, B": 0}[masks]
    return text, {"q6.scale": Decimal(0 if scale == "C" else 1), "q6.masks": Decimal(right),
                  "q6.name": Decimal(0 if name == "sigmoid" else 1)}


def _grade(text: str) -> dict[str, ItemResult]:
    parsed = read_submission(text.encode(), "quiz.tex", "text/x-tex", RUBRIC.rubric)
    return {r.item_id: r for r in grade_submission(RUBRIC, parsed).items}


@settings(max_examples=60, deadline=None, database=None, derandomize=True)
@given(_lists())
def test_each_choice_item_reads_its_item_of_a_latex_list(case: tuple[str, dict[str, Decimal]]
                                                         ) -> None:
    text, expected = case
    results = _grade(text)
    for item, points in expected.items():
        result = results[item]
        assert (result.status, result.points) == (Status.GRADED, points), (text, result)
