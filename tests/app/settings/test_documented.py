"""Every operator setting is in README.md's configuration table (a setting nobody can find is
a setting nobody can reach)."""

from __future__ import annotations

import re

from app.settings import Settings
from tests.shared_data import REPO

README = REPO / "README.md"


def _documented() -> set[str]:
    """The variables the table names; `…_X` after `GRADEFORMER_A_B` names `GRADEFORMER_A_X`
    (its last word replaced) or any shorter prefix's, as the table abbreviates."""
    names: set[str] = set()
    for line in README.read_text(encoding="utf-8").splitlines():
        if not line.startswith("| `GRADEFORMER_"):
            continue
        spelled = re.findall(r"`([^`]+)`", line.split("|")[1])
        names.add(spelled[0])
        words = spelled[0].split("_")
        for other in spelled[1:]:
            if other.startswith("…_"):
                names.update("_".join(words[:cut]) + other[1:] for cut in range(1, len(words)))
            else:
                names.add(other)
    return names


def test_every_setting_is_in_the_readme_table() -> None:
    documented = _documented()
    missing = [f"GRADEFORMER_{name.upper()}" for name in Settings.model_fields
               if f"GRADEFORMER_{name.upper()}" not in documented]
    assert missing == []


def test_the_written_settings_reach_the_grader() -> None:
    from graders.written.settings import WrittenSettings

    options = Settings(written_similarity="always", embedding_max_tokens=64,
                       written_max_embedded_chars=2000,
                       written_max_embedded_sentences=10).grading_options()
    settings = WrittenSettings.from_options(options)
    assert (settings.similarity, settings.max_tokens, settings.max_chars,
            settings.max_sentences) == ("always", 64, 2000, 10)
    assert "written_similarity" not in Settings().grading_options()  # the default says nothing
