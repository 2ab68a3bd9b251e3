from __future__ import annotations

from collections.abc import Iterator

import pytest

from graders.context import GradingResources


@pytest.fixture(scope="session")
def resources() -> Iterator[GradingResources]:
    """One worker pool for the whole session, as a grading process would keep it."""
    shared = GradingResources()
    yield shared
    shared.close()
