"""The parent's side of the result protocol: untrusted frames in, validated values out.

A child's frames are a JSON header plus raw array bytes. Nothing is unpickled; every array's
dtype kind, byte order, shape and byte size is checked before a single element is allocated, and
anything malformed becomes a protocol violation (the student's process misbehaved) rather than an
exception in the grader.
"""

from __future__ import annotations

import json
import math
import re
import struct
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from graders.sandbox.text import clean_text

FRAME_HEAD = struct.Struct(">II")
MAX_HEADER = 256 * 1024
MAX_DIMS = 8
MAX_TEXT = 500
# Native little-endian (or byte-order-free) bool, integer, unsigned and float arrays only.
_DTYPE = re.compile(r"^(\|b1|\|[iu]1|<[iu][248]|<f[248])$")


class ProtocolViolation(Exception):
    """The child's result bytes do not follow the protocol (forged, truncated or hostile)."""


def encode_frame(header: dict[str, Any], payload: bytes = b"") -> bytes:
    raw = json.dumps(header).encode()
    return FRAME_HEAD.pack(len(raw), len(payload)) + raw + payload


@dataclass(frozen=True)
class Value:
    """What a student's function returned: an array, a sequence of values, None, or a type name
    for things the protocol does not carry (objects, strings, oversized views)."""

    kind: str  # "array", "seq", "none", "unsupported", "too_large"
    array: np.ndarray[Any, Any] | None = None
    items: tuple[Value, ...] = ()
    length: int = 0
    type_name: str = ""
    dtype: str = ""
    shape: tuple[int, ...] = ()

    def describe(self) -> str:
        if self.kind == "array" and self.type_name == "dict":
            return f"a dict of {self.shape[0]} entries"
        if self.kind == "array":
            return f"an array of shape {self.shape} ({self.dtype})"
        if self.kind == "seq":
            return f"a {self.type_name} of {self.length} values"
        if self.kind == "none":
            return "None"
        if self.kind == "too_large":
            return f"an array of shape {self.shape}, too large to return"
        return f"a {self.type_name}" + (f" of dtype {self.dtype}" if self.dtype else "")


@dataclass(frozen=True)
class StudentError:
    type: str
    message: str
    lines: tuple[int, ...]  # line numbers in the source that ran, innermost last
    functions: tuple[str, ...]


@dataclass(frozen=True)
class CallResult:
    index: int
    ok: bool
    value: Value | None = None
    error: StudentError | None = None
    missing: bool = False  # the function (or the method's class) was not defined
    in_init: bool = False  # the class's constructor raised, before the method was called
    salvage: dict[str, np.ndarray[Any, Any]] = field(default_factory=dict)


@dataclass(frozen=True)
class ModuleResult:
    syntax_error: tuple[int, int, str] | None  # line, offset, message
    errors: tuple[tuple[int, StudentError], ...]  # top-level statements that raised


@dataclass
class ParsedResults:
    module: ModuleResult | None = None
    calls: dict[int, CallResult] = field(default_factory=dict)
    done: bool = False
    violations: list[str] = field(default_factory=list)


def _text(value: object, limit: int = MAX_TEXT, *, multiline: bool = False) -> str:
    """A string the child sent, sanitised at this boundary (see graders.sandbox.text): nothing
    past here ever holds a child's raw text."""
    if not isinstance(value, str):
        raise ProtocolViolation("expected a string")
    return clean_text(value, limit, multiline=multiline)


def _int(value: object, low: int = 0, high: int = 2**31) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise ProtocolViolation(f"expected an integer in [{low}, {high}]")
    return value


class _Arrays:
    """Carves validated arrays out of one frame's payload, in order."""

    def __init__(self, payload: bytes) -> None:
        self.payload = payload
        self.offset = 0

    def take(self, desc: dict[str, Any]) -> np.ndarray[Any, Any]:
        dtype_text = desc.get("dtype")
        if not isinstance(dtype_text, str) or not _DTYPE.match(dtype_text[:8]):
            shown = _text(dtype_text, 16) if isinstance(dtype_text, str) else "?"
            raise ProtocolViolation(f"array dtype {shown!r} is not allowed")
        dtype = np.dtype(dtype_text)
        shape_raw = desc.get("shape")
        if not isinstance(shape_raw, list) or len(shape_raw) > MAX_DIMS:
            raise ProtocolViolation("array shape must be a list of at most 8 sizes")
        shape = tuple(_int(n) for n in shape_raw)
        count = math.prod(shape)
        nbytes = _int(desc.get("nbytes"), 0, len(self.payload))
        if count * dtype.itemsize != nbytes:
            raise ProtocolViolation("array byte size does not match its shape and dtype")
        if self.offset + nbytes > len(self.payload):
            raise ProtocolViolation("array bytes run past the end of the frame")
        array = np.frombuffer(self.payload, dtype=dtype, count=count, offset=self.offset)
        self.offset += nbytes
        return array.reshape(shape)

    def finish(self) -> None:
        if self.offset != len(self.payload):
            raise ProtocolViolation("the frame carries bytes no array claims")


def _value(desc: object, arrays: _Arrays, depth: int = 0) -> Value:
    if not isinstance(desc, dict):
        raise ProtocolViolation("a value must be an object")
    kind = desc.get("t")
    if kind == "none":
        return Value("none")
    if kind == "array":
        array = arrays.take(desc)
        if desc.get("mapping") is True:
            if array.ndim != 2:
                raise ProtocolViolation("a dict's table must have two axes")
            array = sorted_table(array)
            return Value("array", array=array, dtype=str(array.dtype), shape=array.shape,
                         type_name="dict")
        return Value("array", array=array, dtype=str(array.dtype), shape=array.shape)
    if kind == "seq" and depth == 0:
        items = desc.get("items")
        if not isinstance(items, list) or len(items) > 8:
            raise ProtocolViolation("a sequence carries at most 8 values")
        return Value("seq", items=tuple(_value(i, arrays, 1) for i in items),
                     length=_int(desc.get("length")), type_name=_text(desc.get("kind"), 10))
    if kind in ("unsupported", "too_large"):
        shape = desc.get("shape", [])
        return Value(kind, type_name=_text(desc.get("type", "ndarray"), 100),
                     dtype=_text(desc.get("dtype", ""), 40),
                     shape=tuple(_int(n, 0, 2**62) for n in shape[:MAX_DIMS])
                     if isinstance(shape, list) else ())
    shown = _text(kind, 40) if isinstance(kind, str) else type(kind).__name__
    raise ProtocolViolation(f"unknown value kind {shown!r}")


def sorted_table(table: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """A dict read as the rows `(*key, value)` of a table, sorted by key: two dicts with the
    same entries give the same table, whatever order they were filled in."""
    if table.shape[0] < 2 or table.shape[1] < 2:
        return table
    return table[np.lexsort(table[:, :-1].T[::-1])]


def _error(desc: object) -> StudentError:
    if not isinstance(desc, dict):
        raise ProtocolViolation("an error must be an object")
    frames = desc.get("frames", [])
    if not isinstance(frames, list):
        raise ProtocolViolation("error frames must be a list")
    lines: list[int] = []
    names: list[str] = []
    for frame in frames[:12]:
        if not isinstance(frame, list) or len(frame) != 2:
            raise ProtocolViolation("an error frame is [line, function]")
        lines.append(_int(frame[0] if frame[0] is not None else 0))
        names.append(_text(frame[1], 100))
    return StudentError(type=_text(desc.get("type"), 100),
                        message=_text(desc.get("message"), multiline=True),
                        lines=tuple(lines), functions=tuple(names))


def _module(header: dict[str, Any]) -> ModuleResult:
    syntax = header.get("syntax_error")
    syntax_error = None
    if syntax is not None:
        if not isinstance(syntax, dict):
            raise ProtocolViolation("syntax_error must be an object")
        syntax_error = (_int(syntax.get("line")), _int(syntax.get("offset")),
                        _text(syntax.get("message"), multiline=True))
    errors_raw = header.get("errors", [])
    if not isinstance(errors_raw, list):
        raise ProtocolViolation("module errors must be a list")
    errors = tuple((_int(e.get("line")) if isinstance(e, dict) else 0, _error(e))
                   for e in errors_raw[:20])
    return ModuleResult(syntax_error=syntax_error, errors=errors)


def _call(header: dict[str, Any], payload: bytes, n_calls: int) -> CallResult:
    index = _int(header.get("index"), 0, max(n_calls - 1, 0))
    arrays = _Arrays(payload)
    ok = header.get("ok")
    if ok is True:
        result = CallResult(index=index, ok=True, value=_value(header.get("value"), arrays))
    elif ok is False:
        salvage: dict[str, np.ndarray[Any, Any]] = {}
        raw = header.get("salvage", [])
        if not isinstance(raw, list) or len(raw) > 12:
            raise ProtocolViolation("salvage is a list of at most 12 arrays")
        for desc in raw:
            if not isinstance(desc, dict):
                raise ProtocolViolation("a salvaged array must be an object")
            salvage[_text(desc.get("name"), 64)] = arrays.take(desc)
        result = CallResult(index=index, ok=False, error=_error(header.get("error")),
                            missing=header.get("missing") is True, salvage=salvage,
                            in_init=header.get("stage") == "init")
    else:
        raise ProtocolViolation("a call frame says ok: true or ok: false")
    arrays.finish()
    return result


def parse_results(data: bytes, n_calls: int, seal: str | None = None) -> ParsedResults:
    """Read a child's frames. Stops at the first violation, and then no call counts: a stream
    the harness did not write alone (a call reported twice, a frame without the run's `seal`)
    reports nothing the grader can believe. `seal` None: frames carry none (tests of the
    format alone)."""
    parsed = ParsedResults()
    position = 0
    forged: set[int] = set()
    while position < len(data):
        if position + FRAME_HEAD.size > len(data):
            parsed.violations.append("the result stream ends inside a frame header")
            break
        hlen, plen = FRAME_HEAD.unpack_from(data, position)
        start = position + FRAME_HEAD.size
        if hlen > MAX_HEADER or start + hlen + plen > len(data):
            parsed.violations.append("a result frame is truncated or oversized")
            break
        raw_header = data[start:start + hlen]
        payload = data[start + hlen:start + hlen + plen]
        position = start + hlen + plen
        try:
            header = json.loads(raw_header)
            if not isinstance(header, dict):
                raise ProtocolViolation("a frame header must be an object")
            kind = header.get("kind")
            if seal is not None and kind in ("module", "call") and header.get("seal") != seal:
                raise ProtocolViolation(f"a {kind} frame the harness did not write")
            if kind == "module":
                if parsed.module is not None or parsed.calls:
                    raise ProtocolViolation("a second module report")
                parsed.module = _module(header)
            elif kind == "call":
                call = _call(header, payload, n_calls)
                if call.index in parsed.calls or call.index in forged:
                    forged.add(call.index)
                    parsed.calls.pop(call.index, None)
                    raise ProtocolViolation(f"call {call.index} was reported twice")
                parsed.calls[call.index] = call
            elif kind == "done":
                if parsed.done:
                    raise ProtocolViolation("the job was reported finished twice")
                parsed.done = True
            else:
                shown = _text(kind, 40) if isinstance(kind, str) else type(kind).__name__
                raise ProtocolViolation(f"unknown frame kind {shown!r}")
        except (ProtocolViolation, ValueError, RecursionError, TypeError, AttributeError) as exc:
            parsed.violations.append(clean_text(str(exc), 200))
            break
    if parsed.violations:
        parsed.done = False
        parsed.calls.clear()
    return parsed
