"""Whether a recomputed result is the one a stored row was written from."""

from __future__ import annotations

from graders.results import ItemResult

_RESULT_FIELDS = frozenset(ItemResult.model_fields)


def same_result(stored: ItemResult | None, result: ItemResult) -> bool:
    """`stored == result`: pydantic's equality of two ItemResults, which for two without extra
    or private attributes is that of their fields (here the only keys of their `__dict__`),
    without its generic checks (a regrade compares every recomputed result)."""
    if stored is None:
        return False
    if stored is result:
        return True
    if (type(stored) is not ItemResult or type(result) is not ItemResult
            or stored.__pydantic_extra__ is not None or result.__pydantic_extra__ is not None
            or stored.__pydantic_private__ is not None
            or result.__pydantic_private__ is not None):
        return stored == result
    mine, theirs = stored.__dict__, result.__dict__
    if mine == theirs:
        return True
    if mine.keys() <= _RESULT_FIELDS and theirs.keys() <= _RESULT_FIELDS:
        return False
    return stored == result
