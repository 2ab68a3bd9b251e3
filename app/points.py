"""Points in API bodies: exact Decimal inside, a JSON number outside (hundredths survive)."""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Any

from pydantic import Field, PlainSerializer


def as_number(value: Decimal) -> int | float:
    return int(value) if value == value.to_integral_value() else float(value)


# Points anywhere near this are nonsense; the bound keeps 1e400 and friends (and infinities)
# out of exact arithmetic, where they would overflow instead of being refused.
POINTS_BOUND = Decimal(10**9)

JsonPoints = Annotated[
    Decimal,
    Field(allow_inf_nan=False, ge=-POINTS_BOUND, le=POINTS_BOUND),
    PlainSerializer(as_number, return_type=int | float, when_used="json"),
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
