"""Cost of locating every answer in a long typed LaTeX solution set (target: <= 20 ms for 35 kB).

The document is synthetic and of the class real CS224N submissions belong to: an article with
\\section / \\subsection headings, enumerate items for the sub-parts, the handout's question pasted
before each answer with its points and a bold "Answer:" marker, display maths and a few hundred
words of derivation per part. Location runs in this process after a warm-up; the median and p95
over repeated runs are reported, with CPU time beside wall time (the machine is shared).
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.report import write_section  # noqa: E402
from graders.documents.locate import locate  # noqa: E402
from graders.rubric import BUNDLED_RUBRICS, load_rubric  # noqa: E402

TARGET_BYTES = 35_000
TARGET_MS = 20.0
RUNS = 60

_DERIVATION = (
    "We expand the score of each key against the query and use that the keys are orthogonal. "
    "$$k_i^\\top q = \\beta\\, k_i^\\top (k_a + k_b) = \\beta\\,(\\delta_{ia} + \\delta_{ib})$$\n"
    "So the two scores are equal and every other score is zero; as $\\beta$ grows the softmax "
    "puts half of its weight on each of $a$ and $b$, and $c \\approx \\tfrac12 (v_a + v_b)$.\n"
)


def _part(letter: str, romans: int, reps: int) -> str:
    lines = [f"\\subsection{{({letter}) A part of the question (3 points)}}",
             "Recall the set-up of this part; you may use the results above.", ""]
    if romans:
        lines.append("\\begin{enumerate}[label=(\\roman*)]")
        for n in range(romans):
            lines += [f"  \\item \\textbf{{({n + 1} points)}} Describe what you expect and why.",
                      "", "  \\textbf{Answer:} " + _DERIVATION * reps, ""]
        lines.append("\\end{enumerate}")
    else:
        lines += ["\\textbf{Answer:} " + _DERIVATION * reps, ""]
    return "\n".join(lines)


def _build(reps: int) -> str:
    outline = (("1", (("a", 2), ("b", 0), ("c", 2), ("d", 2), ("e", 0))),
               ("2", (("a", 2), ("b", 2))))
    parts = ["\\documentclass{article}\n\\usepackage{amsmath}\n\\begin{document}"]
    for number, letters in outline:
        parts.append(f"\\section{{Question {number} (10 points)}}")
        parts += [_part(letter, romans, reps) for letter, romans in letters]
    return "\n".join(parts) + "\n\\end{document}\n"


def document(target: int = TARGET_BYTES) -> str:
    """The outline above, with derivations long enough to reach `target` bytes."""
    reps = 1
    while len(_build(reps).encode()) < target:
        reps += 1
    return _build(reps)


def main() -> None:
    rubric = load_rubric(BUNDLED_RUBRICS / "cs224n-attention.yaml").rubric
    text = document()
    location = locate(text, rubric)  # warm-up: compiled patterns, cue caches
    located = sorted(location.answers)
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(RUNS):
        w0, c0 = time.perf_counter(), time.process_time()
        locate(text, rubric)
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
    wall.sort()
    cpu.sort()
    p50, p95 = statistics.median(wall), wall[int(0.95 * (len(wall) - 1))]
    cpu50 = statistics.median(cpu)
    verdict = "met" if cpu50 <= TARGET_MS else "NOT met"
    body = "\n".join([
        "## Locate: answers in a 35 kB LaTeX solution set",
        "",
        f"A synthetic {len(text.encode()) / 1000:.1f} kB LaTeX article (sections, subsections, "
        "enumerate sub-parts, the handout's question and an `Answer:` marker before every "
        f"answer) located against `cs224n-attention`: {len(located)} of "
        f"{len(rubric.questions)} questions found, {RUNS} runs after a warm-up.",
        "",
        "| measure | p50 ms | p95 ms |",
        "|---|---:|---:|",
        f"| wall | {p50:.1f} | {p95:.1f} |",
        f"| CPU | {cpu50:.1f} | {cpu[int(0.95 * (len(cpu) - 1))]:.1f} |",
        "",
        f"Target <= {TARGET_MS:.0f} ms per document (CPU, median): **{verdict}**. Machine load "
        f"(1-minute average) {os.getloadavg()[0]:.1f}.",
    ])
    print(body)
    write_section("locate", body)


if __name__ == "__main__":
    main()
