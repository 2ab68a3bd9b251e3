"""The child side of a job, run after every isolation layer is in place.

Never imported by the grader: the parent sends this file's text to the zygote, which runs it once
before forking. It executes the submission statement by statement in a fresh module namespace,
calls the requested functions on copies of the inputs and writes one frame per step to the
result pipe. Everything written here is untrusted by the parent (student code ran in this very
process and may have patched anything), which validates every byte before use.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import io
import json
import os
import struct
import sys
import time
import traceback
from operator import attrgetter, is_
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:  # in the zygote, its text follows this one in the same namespace
    from graders.sandbox.harness_clock import set_clock

SUBMISSION = "<submission>"
ARRAY_KINDS = "fiub"
MAX_ITEMS = 8
MAX_SALVAGED = 12

_write = os.write
_dumps = json.dumps
_pack = struct.pack
_default_rng = np.random.default_rng


def _frame(fd: int, header: dict[str, Any], chunks: list[bytes]) -> None:
    payload = b"".join(chunks)
    raw = _dumps(header).encode()
    data = memoryview(_pack(">II", len(raw), len(payload)) + raw + payload)
    while data:
        data = data[_write(fd, data):]


class _Budget:
    def __init__(self, limit: int) -> None:
        self.left = limit


def _encode_array(value: Any, chunks: list[bytes], budget: _Budget) -> dict[str, Any]:
    array = np.asarray(value)
    kind = array.dtype.kind
    shape = [int(n) for n in array.shape]
    if kind not in ARRAY_KINDS:
        return {"t": "unsupported", "type": "ndarray", "dtype": str(array.dtype), "shape": shape}
    # Extended floats (np.longdouble, float96/float128) and wide integers have no place in
    # the protocol: an honest result in them travels as float64 (checked size first).
    wide = array.dtype.itemsize > 8
    nbytes = int(array.size) * (8 if wide else int(array.dtype.itemsize))
    if nbytes > budget.left:
        # A broadcast view can claim terabytes while owning a few bytes: never materialise it.
        return {"t": "too_large", "dtype": str(array.dtype), "shape": shape}
    if wide:
        array = array.astype(np.float64)
    elif not array.dtype.isnative:
        array = array.astype(array.dtype.newbyteorder("="))
    data = array.tobytes()  # C order, whatever the strides
    budget.left -= len(data)
    chunks.append(data)
    return {"t": "array", "dtype": array.dtype.str, "shape": shape, "nbytes": len(data)}


# NumPy's own scalar types, matched exactly (a subclass of the student's is not one): a list
# built by appending `peak * np.sqrt(w / s)` holds them beside Python floats
_NUMPY_NUMBERS = frozenset({np.float64, np.float32, np.float16, np.int64, np.int32, np.int16,
                            np.int8, np.uint64, np.uint32, np.uint16, np.uint8, np.bool_})


_NUMBERS = frozenset({int, float, bool}) | _NUMPY_NUMBERS


def _number_list(value: Any, depth: int, left: list[int], numpy: bool = False) -> bool:
    """A list of Python numbers (with `numpy`, NumPy's scalars too), or of such lists (what
    `.tolist()` gives), at most `left[0]` numbers in all."""
    if type(value) is not list or depth > 6:
        return False
    for item in value:
        if type(item) in (int, float, bool) or (numpy and type(item) in _NUMPY_NUMBERS):
            left[0] -= 1
            if left[0] < 0:
                return False
        elif not _number_list(item, depth + 1, left, numpy):
            return False
    return True


def _mapping(value: Any, chunks: list[bytes], budget: _Budget) -> dict[str, Any] | None:
    """A dict keyed by numbers, or by tuples of numbers of one length, whose values are numbers
    (a count of pairs `{(a, b): n}`, a histogram `{id: n}`): the rows `(*key, value)` of a
    table, in the dict's order (the parent sorts them). None for any other dict."""
    rows: list[list[Any]] = []
    width = -1
    left = budget.left // 8
    for key, item in dict.items(value):
        parts = [key] if type(key) in _NUMBERS else list(key) if type(key) is tuple else None
        if parts is None or type(item) not in _NUMBERS or width not in (-1, len(parts)):
            return None
        for part in parts:
            if type(part) not in _NUMBERS:
                return None
        width = len(parts)
        left -= width + 1
        if left < 0:
            return None
        rows.append([*parts, item])
    try:
        table = np.asarray(rows) if rows else np.asarray(rows, dtype=np.float64).reshape(0, 0)
        desc = _encode_array(table, chunks, budget)
    except Exception:
        return None
    if desc.get("t") != "array":
        return None
    desc["mapping"] = True
    return desc


_NAME = type.__dict__["__name__"]


def _type_name(kind: type) -> str:
    """A class's own name (a metaclass's `__name__` property does not answer for it)."""
    return str(_NAME.__get__(kind, type))[:100]


def _describe(value: Any, depth: int, chunks: list[bytes], budget: _Budget) -> dict[str, Any]:
    # Containers are read through the built-in types' own slots and only exact Python numbers
    # are converted, so no method of the student's (a subclass's __iter__, __len__ or values(),
    # an element's __array__ or __float__) runs inside the harness while it describes a result.
    if value is None:
        return {"t": "none"}
    kind = type(value)
    # NumPy's scalars make a list an array (`lrs.append(peak * np.sqrt(w / s))`), never a
    # tuple: `return mean, std` of NumPy scalars is two outputs
    if kind in (list, tuple) and value \
            and _number_list(list(value), 0, [budget.left // 8], numpy=kind is list) \
            and not (kind is tuple and all(type(v) is list for v in value)):
        # A result returned as nested lists (`.tolist()`) travels as the array it spells; a
        # ragged one, or a tuple of such lists (`return K.tolist(), V.tolist()`: several
        # outputs), is a sequence as before.
        try:
            return _encode_array(np.asarray(value), chunks, budget)
        except Exception:
            pass
    if depth == 0 and issubclass(kind, tuple | list):
        base: Any = tuple if issubclass(kind, tuple) else list
        length = base.__len__(value)
        items = [_describe(base.__getitem__(value, i), 1, chunks, budget)
                 for i in range(min(length, MAX_ITEMS))]
        return {"t": "seq", "kind": "list" if base is list else "tuple", "length": length,
                "items": items}
    if issubclass(kind, dict):
        table = _mapping(value, chunks, budget)
        if table is not None:
            return table
    if depth == 0 and issubclass(kind, dict):
        # {"output": ..., "weights": ...}: its values in order; the parent tells them apart.
        values = list(dict.values(value))
        items = [_describe(v, 1, chunks, budget) for v in values[:MAX_ITEMS]]
        return {"t": "seq", "kind": "dict", "length": len(values), "items": items}
    if issubclass(kind, np.ndarray | np.generic) or kind in (int, float, bool):
        try:
            return _encode_array(value, chunks, budget)
        except Exception:
            return {"t": "unsupported", "type": _type_name(kind)}
    return {"t": "unsupported", "type": _type_name(kind)}


def _error(exc: BaseException) -> dict[str, Any]:
    frames = [[f.lineno, f.name] for f in traceback.extract_tb(exc.__traceback__)
              if f.filename == SUBMISSION]
    try:
        message = str(exc)[:500]
    except Exception:
        message = "(the exception's message could not be read)"
    return {"type": type(exc).__name__[:100], "message": message, "frames": frames[-12:]}


def _salvage(exc: BaseException, chunks: list[bytes], budget: _Budget,
             max_elements: int) -> list[dict[str, Any]]:
    """The arrays the student's function had computed when it failed, for checks that can still
    be decided (the parent chooses which; it only ever sees validated raw arrays)."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != SUBMISSION:
        tb = tb.tb_next
    if tb is None:
        return []
    found: list[dict[str, Any]] = []
    for name, value in list(tb.tb_frame.f_locals.items()):
        if len(found) >= MAX_SALVAGED:
            break
        if type(name) is not str or not issubclass(type(value), np.ndarray):
            continue
        array = np.asarray(value)  # the base array: a subclass's properties do not answer
        if array.dtype.kind in ARRAY_KINDS and array.size <= max_elements and array.ndim <= 4:
            described = _encode_array(array, chunks, budget)
            if described["t"] == "array":
                found.append({"name": name[:64], **described})
    return found


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()


def _execute_module(source: str, namespace: dict[str, Any]) -> dict[str, Any]:
    try:
        # Compiled with the harness's `annotations` future: an annotation naming what failed to
        # import here (`Q: torch.Tensor`) does not stop the definition.
        code = compile(source, SUBMISSION, "exec")
    except SyntaxError as exc:  # IndentationError and TabError too: the name says which
        return {"kind": "module", "syntax_error": {
            "line": exc.lineno or 0, "offset": exc.offset or 0,
            "message": f"{type(exc).__name__}: {exc.msg}"[:300]}, "errors": []}
    except (ValueError, MemoryError, RecursionError) as exc:
        return {"kind": "module", "syntax_error": {
            "line": 0, "offset": 0, "message": f"{type(exc).__name__}: {exc}"[:300]},
            "errors": []}
    try:
        exec(code, namespace)
        return {"kind": "module", "syntax_error": None, "errors": []}
    except BaseException as exc:
        failed = _error(exc)
    # A broken demo line at the bottom must not hide the functions above: carry on with the
    # statements after the one that failed, one by one.
    errors: list[dict[str, Any]] = []
    tree = ast.parse(source, SUBMISSION)
    failing_line = failed["frames"][0][0] if failed["frames"] else 0
    for statement in tree.body:
        end = statement.end_lineno or statement.lineno
        if end < failing_line:
            continue
        if statement.lineno <= failing_line <= end:
            errors.append({"line": statement.lineno, **failed})
            continue
        code = compile(ast.Module(body=[statement], type_ignores=[]), SUBMISSION, "exec")
        try:
            exec(code, namespace)
        except BaseException as exc:
            errors.append({"line": statement.lineno, **_error(exc)})
    return {"kind": "module", "syntax_error": None, "errors": errors[:20]}


def install_streams() -> None:
    """Called in the zygote: the child's fds 1 and 2 become its output pipe, so wrappers made
    once here serve every child without being rebuilt."""
    sys.stdout = io.TextIOWrapper(io.FileIO(1, "w", closefd=False), encoding="utf-8",
                                  errors="replace", line_buffering=True)
    sys.stderr = io.TextIOWrapper(io.FileIO(2, "w", closefd=False), encoding="utf-8",
                                  errors="replace", line_buffering=True)


def _argument(array: Any, scalar: bool, generator: bool = False) -> Any:
    # A scalar argument travels as a 0-d array and is handed over as the Python int, float or
    # bool it stands for (a tuple of them as that tuple); arrays are copied so one call cannot
    # change the next one's inputs. A generator (`rng`) travels as its seed and is built here,
    # a fresh one per call.
    if generator:
        return _default_rng(int(array.item()))
    if scalar:  # a tuple of the battery's (a pair of ids) travels as a 1-D array
        return array.item() if array.ndim == 0 else tuple(array.tolist())
    return array.copy()


def _arguments(part: dict[str, Any], inputs: list[Any], items: Any, generators: Any
               ) -> tuple[list[Any], dict[str, Any]]:
    args = [_argument(inputs[i], i in items, i in generators) for i in part["args"]]
    kwargs = {str(name): _argument(inputs[i], i in items, i in generators)
              for name, i in part.get("kwargs") or ()}
    return args, kwargs


def _run_calls(calls: list[dict[str, Any]], first_index: int, namespace: dict[str, Any],
               inputs: list[Any], budget: _Budget, salvage_elements: int, result_fd: int,
               seal: str, guard: Any) -> bool:
    """Whether every call was reported (False: the harness was tampered with, and nothing
    more is written). A call with `init` is a method's: its class constructed first (or the
    last instance kept, `again`); a constructor's exception is reported with `stage: init`."""
    intact, (code, defaults) = guard
    built: Any = None
    for offset, call in enumerate(calls):
        init = call.get("init")
        name = init["cls"] if init else call["function"]
        function = namespace.get(name)
        chunks: list[bytes] = []
        header: dict[str, Any] = {"kind": "call", "index": first_index + offset, "seal": seal}
        if not callable(function):
            header.update(ok=False, missing=True, error={
                "type": "NameError", "frames": [],
                "message": f"no {'class' if init else 'function'} named {name!r}"})
            _frame(result_fd, header, chunks)
            continue
        items = call.get("items") or ()
        generators = call.get("generators") or ()
        args, kwargs = _arguments(call, inputs, items, generators)
        started = time.perf_counter()
        stage = "call"
        try:
            if init:
                if not init.get("again") or built is None:
                    stage, built = "init", None
                    init_args, init_kwargs = _arguments(init, inputs, items, generators)
                    built = function(*init_args, **init_kwargs)
                    stage = "call"
                function = getattr(built, call["function"])
            value = function(*args, **kwargs)
            if not (intact.__code__ is code and intact.__defaults__ is defaults
                    and intact()):
                return False
        except BaseException as exc:
            header.update(ok=False, error=_error(exc), stage=stage,
                          salvage=_salvage(exc, chunks, budget, salvage_elements))
        else:
            try:
                header.update(ok=True, value=_describe(value, 0, chunks, budget))
            except BaseException as exc:
                chunks.clear()
                header.update(ok=False, error=_error(exc))
        header["ms"] = (time.perf_counter() - started) * 1000
        _flush()
        if not (intact.__code__ is code and intact.__defaults__ is defaults
                and intact()):
            return False
        _frame(result_fd, header, chunks)
    return True


def _unsettle(stir: int) -> list[object]:
    """What a child inherits from its zygote, made to differ from run to run: the global
    random states (else every child draws the zygote's numbers) and where new objects land
    (else `id()` and reprs with addresses repeat). A program whose results depend on them
    then disagrees with itself when run twice; one of its inputs alone never does."""
    np.random.seed(stir % 2**32)
    if "random" in sys.modules:
        sys.modules["random"].seed(stir)
    return [bytes(i % 512) if i % 2 else object() for i in range(stir % 4096)]


# What the harness calls once the student's code has run, besides its own functions: a
# program that rebinds one of them (`_describe` turning None into the right arrays,
# `np.asarray`, `isinstance`) would speak through the harness with the harness's seal.
_BUILTINS_USED = ("isinstance", "type", "callable", "len", "list", "tuple", "dict", "int",
                  "float", "bool", "str", "bytes", "memoryview", "enumerate", "getattr",
                  "BaseException", "Exception", "OSError")
_NUMPY_USED = ("asarray", "ndarray", "generic", "float64")


def _guard(space: dict[str, Any]) -> Any:
    """A check, made before any student code runs, that nothing the harness will use has been
    rebound since (names of the harness, the builtins and NumPy it calls, the code and
    defaults of its functions). Everything it needs is bound as defaults, so rebinding a name
    does not fool it; the caller also checks the check's own code (see `_intact`).

    It runs twice per call, so it reads `__code__`, `__defaults__` and `__kwdefaults__` only
    of the values that have them (functions): asking every module and class for them raised
    and formatted an AttributeError each time, or ran NumPy's module `__getattr__` (0.3 ms a
    check, most of a job's time in the child)."""
    watched = tuple([(space, name) for name in space if not name.startswith("__")]
                    + [(vars(builtins), name) for name in _BUILTINS_USED]
                    + [(vars(np), name) for name in _NUMPY_USED])
    pristine = tuple(where.get(name) for where, name in watched)
    coded = tuple(value for value in pristine if all(
        hasattr(value, part) for part in ("__code__", "__defaults__", "__kwdefaults__")))
    getters = tuple(map(attrgetter, ("__code__", "__defaults__", "__kwdefaults__")))
    inside = tuple(tuple(map(getter, coded)) for getter in getters)

    # Only built-in functions from here on (map, all, dict.get, operator.is_, attrgetter),
    # bound as defaults: no Python frame per value, nothing the student can rebind or swap
    # the code of; `is`, never `==`, which an object of the student's could answer.
    def intact(dicts: Any = tuple(where for where, _ in watched),
               names: Any = tuple(name for _, name in watched), pristine: Any = pristine,
               coded: Any = coded, getters: Any = getters, inside: Any = inside,
               get: Any = dict.get, same: Any = is_, each: Any = map, every: Any = all,
               pairs: Any = zip) -> bool:
        return (every(each(same, each(get, dicts, names), pristine))  # type: ignore[no-any-return]
                and every(every(each(same, each(getter, coded), seen))
                          for getter, seen in pairs(getters, inside)))

    return intact, (intact.__code__, intact.__defaults__)


def _take_seal(job: dict[str, Any], blob: bytes | memoryview, hlen: int) -> str:
    """The run's seal, out of the job and wiped from the job's bytes (the child's own copy)
    before any of the student's code runs."""
    seal = str(job.pop("seal", ""))
    if seal and isinstance(blob, memoryview) and not blob.readonly:
        raw = seal.encode()
        at = bytes(blob[8:8 + hlen]).find(raw)
        if at >= 0:
            blob[8 + at:8 + at + len(raw)] = b"0" * len(raw)
    return seal


def run(blob: bytes | memoryview, result_fd: int, close_when_done: bool = True) -> None:
    """Run one job: `blob` is a frame (JSON header with the program and calls, then the input
    arrays' bytes), parsed here in the child so the zygote never holds a student's data in
    Python objects."""
    hlen, plen = struct.unpack(">II", bytes(blob[:8]))
    job = json.loads(bytes(blob[8:8 + hlen]))
    seal = _take_seal(job, blob, hlen)
    payload = bytes(blob[8 + hlen:8 + hlen + plen])
    inputs = [
        np.frombuffer(payload, dtype=np.dtype(a["dtype"]), count=a["count"],
                      offset=a["offset"]).reshape(a["shape"])
        for a in job["arrays"]
    ]
    budget = _Budget(int(job["caps"]["result_bytes"]))
    salvage_elements = int(job["caps"]["salvage_elements"])
    # A syntax error ends the job without a "done" frame.
    # A module of its own in sys.modules: libraries that look up a class's module by name
    # (dataclasses reading its string annotations, typing, pickle) find it.
    student = type(builtins)("submission")
    namespace: dict[str, Any] = student.__dict__
    namespace["__builtins__"] = builtins
    sys.modules["submission"] = student
    ballast = _unsettle(int(job.get("stir", 0)))  # noqa: F841 (kept alive until the end)
    set_clock(int(job.get("clock", 0)))
    guard = _guard(globals())
    intact, (code, defaults) = guard
    module = _execute_module(job["source"], namespace)
    _flush()
    # A program that rebound what the harness uses gets no more frames written: its calls
    # report nothing (the checks are written out here, where no rebinding reaches them).
    if (intact.__code__ is code and intact.__defaults__ is defaults
            and intact()):
        _frame(result_fd, {**module, "seal": seal}, [])
        if module["syntax_error"] is None and intact() and _run_calls(
                job["calls"], 0, namespace, inputs, budget, salvage_elements, result_fd, seal,
                guard):
            _frame(result_fd, {"kind": "done"}, [])
    # Closing our ends now lets the zygote answer while the kernel is still tearing down this
    # process's memory, which is the slowest part of exiting.
    if close_when_done:
        for fd in (1, 2, result_fd):
            with contextlib.suppress(OSError):
                os.close(fd)
