from __future__ import annotations

import pytest

from tests.graders.numeric.test_properties import GENERATED


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if GENERATED[0]:
        terminalreporter.write_line(f"numeric property tests: {GENERATED[0]} generated answers "
                                    "graded")
