"""Numeric extraction and grading speed on typical answers.

Typical answers are the B1 and B2 answers of transformer-basics as students write them (plain
text, Markdown, LaTeX, one value per line, JSON-like lines, prose with other numbers), a few
hundred characters each; one long answer (about 3 KB of working) is measured apart. Each is
extracted (and graded) many times after a warm-up; CPU time per answer is reported, the figure
other load on this shared machine disturbs least, with wall-time p50/p95 beside it.

Target: extraction <= 2 ms per typical answer.

Usage: python benchmarks/numeric.py [--repeat N] [--no-write]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.report import write_section
from graders.context import GradingContext, GradingResources
from graders.documents.model import LocatedAnswer, ParsedSubmission
from graders.numeric import GRADER
from graders.numeric.extract import extract
from graders.rubric import BUNDLED_RUBRICS, load_rubric

TARGET_MS = 2.0
TYPICAL: tuple[tuple[str, str], ...] = (
    ("B1", "d_head = d_model / h = 768 / 12 = 64\n\nEach of W_Q, W_K, W_V is 768 x 768, so "
           "768 * 768 = 589,824 weights per matrix.\n\nTotal: 3 x 589,824 = 1,769,472 weights "
           "(no bias)."),
    ("B1", "**(a)** $d_{\\text{head}} = \\frac{768}{12} = \\boxed{64}$\n\n**(b)** $W_Q \\in "
           "\\mathbb{R}^{768 \\times 768}$, i.e. $768^2 = 589\\,824$ parameters.\n\n**(c)** "
           "$3 \\times 589\\,824 = 1\\,769\\,472$"),
    ("B1", "The head dimension is sixty-four. W_Q has 5.9 × 10^5 weights and the three "
           "together about 1.77 million."),
    ("B1", "b1.d_head: 64\nb1.per_matrix: 589824\nb1.total: 1769472"),
    ("B1", "We have 12 heads and d_model = 768. Each head gets 768/12 = 64 dimensions. The "
           "query projection is a 768-by-768 matrix: 589824 weights. Q, K and V together: "
           "1769472."),
    ("B2", "e^2 = 7.389, e^1 = 2.718, e^0 = 1, sum = 11.107. softmax = [0.665, 0.245, 0.090]."),
    ("B2", "normalizer 11.11, softmax [0.665, 0.245, 0.090]"),
    ("B2", "The exponentials are 7.389, 2.718 and 1; their sum is $e^2 + e + 1 \\approx "
           "11.107$.\nThe probabilities are 66.5 %, 24.5 % and 9.0 %."),
    ("B2", "$$Z = \\sum_j e^{z_j} = 11.107$$\n$$\\text{softmax}(z) = \\begin{bmatrix} 0.665 "
           "\\\\ 0.245 \\\\ 0.090 \\end{bmatrix}$$"),
    ("B2", "Z = 11.107\nsoftmax:\n0.665\n0.245\n0.090"),
    ("B2", "softmax(2) = 7.389/11.107 = \\boxed{0.665}\n\nsoftmax(1) = 2.718/11.107 = "
           "\\boxed{0.245}\n\nsoftmax(0) = 1/11.107 = \\boxed{0.090}"),
    ("B2", "[0.665 0.245 0.09 ] -- printed by numpy; they sum to 1.0 as they should."),
)


def _long_answer() -> str:
    lines = [f"Step {i}: the logit {i % 3}.0 gives e^{i % 3} = {[1, 2.718, 7.389][i % 3]}, "
             f"and the running sum is {round(11.107 * (i + 1) / 40, 3)}." for i in range(40)]
    return "\n".join([*lines, "So sum = 11.107 and softmax = (0.665, 0.245, 0.090)."])


def _cpu_ms(fn: object, repeat: int) -> tuple[float, float, float]:
    """(CPU ms per call, wall p50 ms, wall p95 ms)."""
    assert callable(fn)
    for _ in range(20):
        fn()
    walls: list[float] = []
    cpu_start = time.process_time()
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        walls.append((time.perf_counter() - started) * 1000)
    cpu = (time.process_time() - cpu_start) * 1000 / repeat
    walls.sort()
    return cpu, statistics.median(walls), walls[int(0.95 * (len(walls) - 1))]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=400)
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    rubric = load_rubric(BUNDLED_RUBRICS / "transformer-basics.yaml").rubric
    questions = {q.id: q for q in rubric.questions}

    def grader_call(question_id: str, text: str) -> object:
        question = questions[question_id]
        answer = LocatedAnswer(question_id, text, start=0, end=len(text))
        submission = ParsedSubmission(text=text, format="text", answers={question_id: answer})
        context = GradingContext(rubric, question, submission, GradingResources())
        items = [i for i in question.items if i.grader == "numeric"]
        return lambda: GRADER.grade_items(items, answer, context)

    extraction: list[float] = []
    grading: list[float] = []
    walls: list[float] = []
    for question_id, text in TYPICAL:
        cpu, p50, _ = _cpu_ms(lambda t=text: extract(t), args.repeat)  # type: ignore[misc]
        extraction.append(cpu)
        walls.append(p50)
        grading.append(_cpu_ms(grader_call(question_id, text), args.repeat // 2)[0])
    long_text = _long_answer()
    long_cpu, long_p50, long_p95 = _cpu_ms(lambda: extract(long_text), args.repeat // 4)
    mean = statistics.fmean(extraction)
    worst = max(extraction)
    verdict = "meets" if worst <= TARGET_MS else "misses"
    lengths = [len(t) for _, t in TYPICAL]
    body = (
        "## Numeric: reading values from answers\n\n"
        f"{len(TYPICAL)} typical B1/B2 answers ({min(lengths)}-{max(lengths)} characters: plain "
        "text, Markdown, LaTeX with thin spaces and matrices, words and scales, one value per "
        "line, JSON-like lines, numpy output), each extracted "
        f"{args.repeat} times after a warm-up.\n\n"
        "| measure | mean | worst answer |\n|---|---:|---:|\n"
        f"| extraction, CPU ms per answer | {mean:.2f} | {worst:.2f} |\n"
        f"| extraction, wall p50 ms per answer | {statistics.fmean(walls):.2f} | "
        f"{max(walls):.2f} |\n"
        f"| whole numeric grading of the question (extract, choose, verdicts), CPU ms | "
        f"{statistics.fmean(grading):.2f} | {max(grading):.2f} |\n\n"
        f"A long answer ({len(long_text)} characters, 41 lines of working): extraction "
        f"{long_cpu:.2f} ms CPU (wall p50 {long_p50:.2f}, p95 {long_p95:.2f}).\n\n"
        f"Target extraction <= {TARGET_MS:g} ms per typical answer: **{verdict}** (worst "
        f"{worst:.2f} ms).\n"
    )
    print(body)
    if not args.no_write:
        write_section("numeric", body)


if __name__ == "__main__":
    main()
