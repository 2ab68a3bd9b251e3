"""Points in API bodies: exact Decimal inside, a JSON number outside (hundredths survive)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from pydantic import PlainSerializer


def as_number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


JsonPoints = Annotated[
    Decimal, PlainSerializer(as_number, return_type=int | float, when_used="json")
]


def numbers(value: Any) -> Any:
    """Decimals anywhere in a plain structure become JSON numbers (for dict responses)."""
    if isinstance(value, Decimal):
        return as_number(value)
    if isinstance(value, dict):
        return {k: numbers(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [numbers(v) for v in value]
    return value
