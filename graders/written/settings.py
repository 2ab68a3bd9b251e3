"""Operator settings of the `written` grader, read from the grading options."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from graders.embedding.files import DEFAULT_MAX_TOKENS
from graders.written.similarity_model import SimilarityModel

# Bounds on the similarity work one answer can cause. A real answer stays well inside them (the
# longest in the seeds is 2,900 characters on 42 lines); a hostile 30 kB field is cut to them.
DEFAULT_MAX_CHARS = 4000
DEFAULT_MAX_SENTENCES = 48
# Risk control (graders.written.risk), here so that what reads them (the calibration service
# before every regrade, the CLI's options) does not import the scoring modules: the share of
# confidently graded answers allowed to be wrong, and the exemplars kept per question (every
# answer is compared with each one).
DEFAULT_TARGET = 0.05
MAX_EXEMPLARS = 40


def _int(options: Mapping[str, Any], key: str, default: int, low: int) -> int:
    value = options.get(key)
    if value is None:
        return default
    number = int(value)
    if number < low:
        raise ValueError(f"option {key} must be at least {low}, not {number}")
    return number


@dataclass(frozen=True)
class WrittenSettings:
    # "on": compare with the references when the patterns leave the decision open; "always":
    # compare every answer (slower, for audits); "off": patterns only.
    similarity: str = "on"
    cache_dir: Path | None = None
    # Word pieces read per embedded text (a sentence, two adjacent ones, or the whole answer).
    max_tokens: int = DEFAULT_MAX_TOKENS
    # Characters and sentences of an answer compared by similarity (the patterns read it all).
    max_chars: int = DEFAULT_MAX_CHARS
    max_sentences: int = DEFAULT_MAX_SENTENCES
    # A calibrated similarity model given by the operator (benchmarks fit one), else the
    # shipped calibration's.
    similarity_model: SimilarityModel | None = None
    # The graded examples' mean offset from the reference model moves every answer (false: where
    # the examples were chosen, not sampled; see `exemplars.reference_offset`).
    exemplar_offset: bool = True
    # The examples' vote weighted by the reference model's doubt about each answer (true: where
    # the examples were chosen because the machine doubted them; `exemplars.weighted_by_doubt`).
    exemplar_by_doubt: bool = False

    @classmethod
    def from_options(cls, options: Mapping[str, Any]) -> WrittenSettings:
        similarity = str(options.get("written_similarity", "on")).lower()
        if similarity in ("off", "false", "0", "no"):
            similarity = "off"
        elif similarity != "always":
            similarity = "on"
        cache_dir = options.get("embedding_cache_dir")
        model = options.get("written_similarity_model")
        if model is not None and not isinstance(model, SimilarityModel):
            model = SimilarityModel.from_mapping(model)
        return cls(
            similarity=similarity,
            cache_dir=Path(cache_dir) if cache_dir else None,
            max_tokens=_int(options, "embedding_max_tokens", DEFAULT_MAX_TOKENS, 8),
            max_chars=_int(options, "written_max_embedded_chars", DEFAULT_MAX_CHARS, 1),
            max_sentences=_int(options, "written_max_embedded_sentences",
                               DEFAULT_MAX_SENTENCES, 1),
            similarity_model=model,
            exemplar_offset=str(options.get("written_exemplar_offset", True)).lower()
            not in ("false", "0", "no", "off"),
            exemplar_by_doubt=str(options.get("written_exemplar_by_doubt", False)).lower()
            in ("true", "1", "yes", "on"),
        )
