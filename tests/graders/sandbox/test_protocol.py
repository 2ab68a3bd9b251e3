"""The parent's reading of a child's frames: validated before allocation, never unpickled."""

from __future__ import annotations

import json
import pickle
import struct

import numpy as np
import pytest

from graders.sandbox.protocol import encode_frame, parse_results


def array_frame(index: int, dtype: str, shape: list[int], data: bytes, nbytes: int | None = None
                ) -> bytes:
    header = {"kind": "call", "index": index, "ok": True,
              "value": {"t": "array", "dtype": dtype, "shape": shape,
                        "nbytes": len(data) if nbytes is None else nbytes}}
    return encode_frame(header, data)


MODULE = encode_frame({"kind": "module", "syntax_error": None, "errors": []})
DONE = encode_frame({"kind": "done"})


def test_a_valid_stream() -> None:
    data = np.arange(6, dtype="<f8").tobytes()
    parsed = parse_results(MODULE + array_frame(0, "<f8", [2, 3], data) + DONE, 1)
    assert parsed.done and not parsed.violations
    value = parsed.calls[0].value
    assert value is not None and value.array is not None
    np.testing.assert_array_equal(value.array, np.arange(6.0).reshape(2, 3))


@pytest.mark.parametrize(("dtype", "shape", "data", "nbytes"), [
    ("|O", [1], b"\0" * 8, None),  # object arrays would need pickle
    ("<c16", [1], b"\0" * 16, None),  # complex is not an allowed kind
    (">f8", [1], b"\0" * 8, None),  # foreign byte order
    ("<U4", [1], b"\0" * 16, None),
    ("<f8", [2, 3], b"\0" * 40, None),  # size does not match the shape
    ("<f8", [-1], b"\0" * 8, None),
    ("<f8", [10**12, 10**12], b"\0" * 8, 8),  # a claimed size far beyond the bytes sent
    ("<f8", [1] * 9, b"\0" * 8, None),  # too many dimensions
    ("<f8", [2], b"\0" * 8, 16),  # claims more bytes than the frame has
])
def test_malformed_arrays_are_violations(dtype: str, shape: list[int], data: bytes,
                                         nbytes: int | None) -> None:
    parsed = parse_results(MODULE + array_frame(0, dtype, shape, data, nbytes) + DONE, 1)
    assert parsed.violations and not parsed.done and 0 not in parsed.calls


def test_a_pickle_is_never_loaded() -> None:
    evil = pickle.dumps(print)
    frame = struct.pack(">II", len(evil), 0) + evil
    parsed = parse_results(MODULE + frame, 1)
    assert parsed.violations


@pytest.mark.parametrize("stream", [
    b"\0\0\0",  # truncated head
    struct.pack(">II", 10**7, 0),  # oversized header
    struct.pack(">II", 5, 0) + b"[1,2]",  # not an object
    struct.pack(">II", 2, 0) + b"{}",  # no kind
    encode_frame({"kind": "call", "index": 5, "ok": True, "value": {"t": "none"}}),  # bad index
    encode_frame({"kind": "call", "index": 0, "ok": "yes"}),
    encode_frame({"kind": "call", "index": 0, "ok": True, "value": {"t": "none"}}, b"extra"),
    encode_frame({"kind": "call", "index": 0, "ok": True,
                  "value": {"t": "seq", "kind": "tuple", "length": 1,
                            "items": [{"t": "seq", "items": []}]}}),  # nested sequences
    ("[" * 100_000).encode(),
])
def test_hostile_frames_are_violations(stream: bytes) -> None:
    parsed = parse_results(MODULE + stream, 1)
    assert parsed.violations and not parsed.done


def test_a_call_reported_twice_is_believed_neither_time() -> None:
    frame = encode_frame({"kind": "call", "index": 0, "ok": True, "value": {"t": "none"}})
    parsed = parse_results(MODULE + frame + frame + DONE, 1)
    assert 0 not in parsed.calls and parsed.violations


def test_error_frames_keep_only_line_numbers_and_capped_text() -> None:
    header = {"kind": "call", "index": 0, "ok": False,
              "error": {"type": "NameError", "message": "x" * 10_000, "frames": [[7, "f"]]},
              "salvage": [{"name": "weights", "t": "array", "dtype": "<f8", "shape": [1],
                           "nbytes": 8}]}
    parsed = parse_results(MODULE + encode_frame(header, b"\0" * 8) + DONE, 1)
    call = parsed.calls[0]
    assert call.error is not None and call.error.lines == (7,)
    assert len(call.error.message) == 500
    assert call.salvage["weights"].shape == (1,)
    assert json.dumps(parsed.done)
