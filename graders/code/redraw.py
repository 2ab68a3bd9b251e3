"""Weights drawn in another order or layout than asked. A class whose constructor draws its
weights from the battery's rng (`generator: true`) may draw the reference's arrays in another
order (W2 before W1) or layout (`(d_ff, d)` then transposed, for `(d, d_ff)`): it computes the
asked function, with other weights than the same seed gives the reference, so an `allclose`
check fails with nothing wrong in the computation. Its results then equal those of the
reference rebuilt with a generator that hands each of its draws the values the student's
arrangement gave that array: NumPy's Generator draws `standard_normal` and `normal` from one
stream and `random` and `uniform` from another, in order (draws of n then m values are one draw
of n + m, cut), so the rearranged values are known without running the student's code.

Whether a rearrangement earns the check is the rubric's choice (the `draw_order` adaptation);
without it, or when nothing explains a difference of a class that draws from the rng (a scale
on the weights, a draw of another shape: the computation may still be right), a person decides.
Runs in the trusted process only, on the reference class."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from graders.code.arrays import as_float
from graders.code.calling import Observed
from graders.code.draw import DrawnCase
from graders.code.functions import FunctionInstance, Outputs, run_trusted

Array = np.ndarray[Any, Any]
Shape = tuple[int, ...]
MAX_DRAWS = 4  # arrays per constructor: 4! orders x 2^4 layouts at most
MAX_ARRANGEMENTS = 128
_STREAMS = {"standard_normal": "normal", "normal": "normal", "random": "uniform",
            "uniform": "uniform"}


def _shape(size: object) -> Shape | None:
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)):
        return (int(size),)
    if isinstance(size, tuple) and all(isinstance(s, (int, np.integer)) for s in size):
        return tuple(int(s) for s in size)
    return None


class _Recorder:
    """A generator that notes each draw's stream and shape; any other use spoils the record."""

    def __init__(self, real: np.random.Generator) -> None:
        self._real: Any = real  # numpy's overloads do not take the sizes passed on
        self.draws: list[tuple[str, Shape]] = []
        self.spoiled = False

    def _note(self, method: str, size: object) -> None:
        shape = _shape(size)
        if shape is None:
            self.spoiled = True
        else:
            self.draws.append((_STREAMS[method], shape))

    def standard_normal(self, size: object = None, **kw: Any) -> Any:
        self._note("standard_normal", size)
        return self._real.standard_normal(size, **kw)

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: object = None) -> Any:
        self._note("normal", size)
        return self._real.normal(loc, scale, size)

    def random(self, size: object = None, **kw: Any) -> Any:
        self._note("random", size)
        return self._real.random(size, **kw)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: object = None) -> Any:
        self._note("uniform", size)
        return self._real.uniform(low, high, size)

    def __getattr__(self, name: str) -> Any:
        self.spoiled = True
        return getattr(self._real, name)


class _Replayer:
    """A generator that hands out fixed standard values, one block per draw, in order."""

    def __init__(self, blocks: list[Array]) -> None:
        self._blocks = iter(blocks)

    def _next(self) -> Array:
        return next(self._blocks)

    def standard_normal(self, size: object = None, **kw: Any) -> Any:
        return self._next()

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: object = None) -> Any:
        return loc + scale * self._next()

    def random(self, size: object = None, **kw: Any) -> Any:
        return self._next()

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: object = None) -> Any:
        return low + (high - low) * self._next()


@dataclass(frozen=True)
class Arrangement:
    order: tuple[int, ...]  # the reference's draws in the order the student makes them
    transposed: tuple[bool, ...]  # per reference draw: drawn in the reversed shape

    def describe(self) -> str:
        parts = []
        if self.order != tuple(sorted(self.order)):
            parts.append("in the order " + ", ".join(f"#{i + 1}" for i in self.order)
                         + " of the asked draws")
        flipped = [f"#{i + 1}" for i, t in enumerate(self.transposed) if t]
        if flipped:
            parts.append(f"draw {', '.join(flipped)} in the transposed shape")
        return " and ".join(parts)


def _arrangements(cases: list[list[tuple[str, Shape]]]) -> Iterator[Arrangement]:
    """Every order and layout of the draws but the asked one (a matrix may be drawn
    transposed, a square one too: its values then lie elsewhere), the simplest first (another
    order alone or another layout alone, then both; the fewest changes first), at most
    MAX_ARRANGEMENTS."""
    count = len(cases[0])
    flips = [(False, True) if all(len(draws[i][1]) == 2 for draws in cases) else (False,)
             for i in range(count)]
    every = [Arrangement(order, tuple(transposed))
             for order in itertools.permutations(range(count))
             for transposed in itertools.product(*flips)]
    every.sort(key=lambda a: (a.order != tuple(range(count)) and any(a.transposed),
                              sum(i != j for i, j in enumerate(a.order)) + sum(a.transposed)))
    yield from every[1:MAX_ARRANGEMENTS + 1]  # the first is the asked arrangement itself


def _blocks(seed: int, draws: list[tuple[str, Shape]], arrangement: Arrangement) -> list[Array]:
    total = sum(math.prod(shape) for _, shape in draws)
    real = np.random.default_rng(seed)
    pool = real.standard_normal(total) if draws[0][0] == "normal" else real.random(total)
    blocks: list[Array] = [np.empty(0)] * len(draws)
    offset = 0
    for index in arrangement.order:
        shape = draws[index][1]
        segment = pool[offset:offset + math.prod(shape)]
        offset += math.prod(shape)
        blocks[index] = (segment.reshape(shape[::-1]).T if arrangement.transposed[index]
                         else segment.reshape(shape))
    return blocks


def _build(target: Callable[..., Any], case: DrawnCase, generator: str, rng: object) -> Any:
    """The trusted class built on the case's `init`, `rng` in place of the generator's seed."""
    arguments = {k: rng if k == generator else v.copy() if isinstance(v, np.ndarray)
                 else v for k, v in case.init.items()}
    with np.errstate(all="ignore"):
        return target(**arguments)


def _recorded(target: Callable[..., Any], cases: tuple[DrawnCase, ...],
              generator: str) -> list[list[tuple[str, Shape]]] | None:
    """Each case's reference draws; None when they cannot be rearranged (another method of the
    generator, two streams, a different number of draws from one case to the next)."""
    found: list[list[tuple[str, Shape]]] = []
    for case in cases:
        recorder = _Recorder(np.random.default_rng(case.init[generator]))
        try:
            _build(target, case, generator, recorder)
        except Exception:
            return None
        draws = recorder.draws
        if recorder.spoiled or not 1 <= len(draws) <= MAX_DRAWS \
                or len({stream for stream, _ in draws}) != 1 \
                or (found and len(found[0]) != len(draws)):
            return None
        found.append(draws)
    return found


def _results(instance: FunctionInstance, generator: str, draws: list[list[tuple[str, Shape]]],
             arrangement: Arrangement) -> list[Outputs | None]:
    battery = instance.battery
    method = battery.method or ""
    results: list[Outputs | None] = []
    built: Any = None
    for case, case_draws in zip(instance.cases, draws, strict=True):
        if not case.spec.same_instance or built is None:
            blocks = _blocks(case.init[generator], case_draws, arrangement)
            try:
                built = _build(battery.reference, case, generator, _Replayer(blocks))
            except Exception:
                built = None
                results.append(None)
                continue
        got = run_trusted(getattr(built, method), case, battery.outputs)
        results.append(got if isinstance(got, dict) else None)
    return results


def _matches(observed: Observed, expected: Outputs | None, output: str, rtol: float,
             atol: float) -> bool:
    actual = as_float(observed.outputs[output]) if output in observed.outputs else None
    wanted = as_float(expected[output]) if expected is not None and output in expected else None
    if actual is None or wanted is None or actual.shape != wanted.shape:
        return False
    with np.errstate(all="ignore"):
        return bool(np.allclose(actual, wanted, rtol=rtol, atol=atol))


def drawn_generator(instance: FunctionInstance) -> str | None:
    """The constructor's one `generator: true` parameter, if it has one."""
    names = [n for n, p in instance.battery.spec.init.items() if p.generator]
    return names[0] if len(names) == 1 else None


def rearranged(instance: FunctionInstance, observations: list[Observed], indices: list[int],
               output: str, rtol: float, atol: float) -> Arrangement | None:
    """The rearrangement of the reference's draws whose results the student's equal on every
    case of `indices`, if one does."""
    generator = drawn_generator(instance)
    if generator is None or not indices or instance.battery.method is None:
        return None
    draws = _recorded(instance.battery.reference, instance.cases, generator)
    if draws is None:
        return None
    for arrangement in _arrangements(draws):
        results = _results(instance, generator, draws, arrangement)
        if all(_matches(observations[i], results[i], output, rtol, atol) for i in indices):
            return arrangement
    return None
