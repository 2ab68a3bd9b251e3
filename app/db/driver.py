"""Bulk statements run through the database driver itself: SQL written once, with `?` for each
parameter (rewritten for the driver's own parameter style), and rows passed as plain tuples of
values already processed by their columns' bind processors (Decimal, datetime and JSON as
SQLAlchemy would bind them).

For statements run for thousands of rows (a regrade stores 1,000 runs per transaction): Core
builds a dict of processed parameters per row and a tuple from it, at several times the cost
of the statement itself on SQLite.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sqlalchemy import Column
from sqlalchemy.engine import Dialect

Bind = Callable[[Any], Any]


def _same(value: Any) -> Any:
    return value


def bind(column: Column[Any], dialect: Dialect) -> Bind:
    """What `column`'s type makes of a Python value for the driver (itself when nothing)."""
    found = column.type.dialect_impl(dialect).bind_processor(dialect)
    return _same if found is None else found


def driver_sql(sql: str, dialect: Dialect) -> str:
    """`sql`, whose parameters are all `?` (positional, and no `?` or `%` otherwise), in the
    driver's parameter style."""
    if "%" in sql:
        raise ValueError("a literal % in driver SQL")
    style = dialect.paramstyle
    if style == "qmark":
        return sql
    if style in ("format", "pyformat"):
        return sql.replace("?", "%s")
    if style in ("numeric", "numeric_dollar"):
        mark = ":" if style == "numeric" else "$"
        parts = sql.split("?")
        return "".join(part + (f"{mark}{n}" if n < len(parts) else "")
                       for n, part in enumerate(parts, start=1))
    raise ValueError(f"unsupported parameter style {style!r}")
