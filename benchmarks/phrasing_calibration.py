"""How well an element's plain-sentence phrasing finds the sentences its patterns credit.

The data we have that says which sentence states which idea: the bundled rubrics' written
elements, their hand-written patterns, and the answers of the seeds and of the CS224N
development corpus (../shared, read at run time, nothing copied). For every answer and every
element with a statement (or a label), each sentence a pattern credits is a positive, every
other sentence of the same answer a negative (noisy: patterns miss paraphrases, which is why
phrasings exist; the negatives above the thresholds are read by hand, `--show`). The phrasing is
compared with each sentence and its clauses as the grader does (`graders.written.meaning`).

    .venv/bin/python -m benchmarks.phrasing_calibration [--show]

prints, per cosine threshold, the share of positives reached and of negatives let through,
with and without the guards, and with a share of the phrasing's words. The thresholds in
meaning.py were read off this table and then raised after a check on a homework none of this
was fitted on (docs/rubrics.md, "Phrasings"). It compares single statements with sentences:
the grader's rival rule (another element closer) and its leaving out of the question's words
are not applied here.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from graders.documents import read_submission
from graders.embedding import load_embedder
from graders.rubric import bundled_rubric_paths, load_rubric
from graders.written.config import WrittenConfig, element_statement
from graders.written.matching import find_elements, on_topic
from graders.written.meaning import overlap, stretches_of, turned_around
from graders.written.text import split_sentences

SHARED = Path(__file__).resolve().parents[1].parent / "shared"  # ../shared beside the checkout
THRESHOLDS = (0.5, 0.55, 0.58, 0.6, 0.62, 0.64, 0.66, 0.68, 0.7, 0.72, 0.75, 0.8)


def _files() -> list[tuple[str, Path]]:
    out: list[tuple[str, Path]] = []
    for folder in (SHARED / "seeds", SHARED / "real" / "cs224n-attention"):
        for grades in sorted(folder.glob("*.grades.yaml")):
            slug = next((line.split(":", 1)[1].strip() for line in grades.read_text().splitlines()
                         if line.startswith("assignment:")), "")
            doc = next((p for p in folder.glob(grades.name.replace(".grades.yaml", ".*"))
                        if not p.name.endswith(".grades.yaml")), None)
            if doc is not None and slug:
                out.append((slug, doc))
    seeds = SHARED / "eval" / "seed-grades.yaml"
    if seeds.exists():
        import yaml

        for slug, listed in yaml.safe_load(seeds.read_text()).items():
            out += [(slug, SHARED / "seeds" / name) for name in listed]
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", action="store_true", help="print negatives above 0.66")
    args = parser.parse_args(argv)
    if not SHARED.exists():
        print(f"skipped: {SHARED} is absent", file=sys.stderr)
        return 0
    rubrics = {p.stem: load_rubric(p) for p in bundled_rubric_paths()}
    embedder = load_embedder(None)
    rows: list[tuple[bool, float, float, bool]] = []  # positive, cosine, overlap, guarded
    for slug, path in _files():
        loaded = rubrics.get(slug)
        if loaded is None or not path.exists():
            continue
        parsed = read_submission(path.read_bytes(), path.name, "text/plain", loaded.rubric)
        for question in loaded.rubric.questions:
            answer = parsed.answers.get(question.id)
            if answer is None:
                continue
            sentences = split_sentences(answer.text)
            for item in question.items:
                if item.grader != "written":
                    continue
                config = WrittenConfig.model_validate(item.config)
                read = on_topic(config.topic, sentences)
                for element in config.elements:
                    phrasing = element_statement(element)
                    credited = {f.sentence for f in find_elements(
                        config.model_copy(update={"elements": (element,)}), read).values()}
                    stretches = stretches_of(read)
                    if not stretches:
                        continue
                    vectors = embedder.embed([s.text for s in stretches] + [phrasing])
                    scores = vectors[:-1] @ vectors[-1]
                    for sentence in read:
                        best = max(((float(scores[i]), s.text) for i, s in enumerate(stretches)
                                    if s.sentence == sentence), default=None)
                        if best is None:
                            continue
                        cosine, text = best
                        positive = sentence in credited
                        guarded = turned_around(text, phrasing) is not None
                        rows.append((positive, cosine, overlap(phrasing, text), guarded))
                        if args.show and not positive and cosine >= 0.66 and not guarded:
                            print(f"NEG {cosine:.2f} {item.id}/{element.id}: {text[:120]!r} "
                                  f"~ {phrasing!r}")
    data = np.array([(p, c, o, g) for p, c, o, g in rows], dtype=float)
    pos, neg = data[data[:, 0] == 1], data[data[:, 0] == 0]
    print(f"{len(pos)} positive sentences, {len(neg)} negative")
    print("threshold  positives>=  negatives>=  (guards on: positives, negatives)")
    for t in THRESHOLDS:
        p_all = (pos[:, 1] >= t).mean()
        n_all = (neg[:, 1] >= t).mean()
        p_g = ((pos[:, 1] >= t) & (pos[:, 3] == 0)).mean()
        n_g = ((neg[:, 1] >= t) & (neg[:, 3] == 0)).mean()
        print(f"{t:9.2f}  {p_all:10.1%}  {n_all:10.1%}   ({p_g:.1%}, {n_g:.1%})")
    print("with the guards and at least this share of the phrasing's content words:")
    for share in (0.4, 0.5, 0.6, 0.75):
        cells = []
        for t in THRESHOLDS[::2]:
            p_w = ((pos[:, 1] >= t) & (pos[:, 3] == 0) & (pos[:, 2] >= share)).mean()
            n_w = ((neg[:, 1] >= t) & (neg[:, 3] == 0) & (neg[:, 2] >= share)).mean()
            cells.append(f"{t:.2f}: {p_w:.1%}/{n_w:.1%}")
        print(f"  words >= {share:.2f}  " + "  ".join(cells))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
