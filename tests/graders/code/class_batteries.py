"""Batteries that ask for a class's method, written to a folder for a test: a `Linear` layer whose
weights come from the `rng` the battery passes to `__init__`, and a `RunningMean` whose state
carries from one call to the next (`same_instance`)."""

from __future__ import annotations

from pathlib import Path

LINEAR_MODULE = '''
import numpy as np


class Linear:
    def __init__(self, d_in, d_out, rng):
        self.W = rng.standard_normal((d_in, d_out)) / np.sqrt(d_in)
        self.b = np.zeros(d_out)

    def forward(self, x):
        return x @ self.W + self.b


class RunningMean:
    def __init__(self, d):
        self.total = np.zeros(d)
        self.count = 0

    def update(self, x):
        self.total = self.total + x.sum(axis=0)
        self.count += x.shape[0]
        return self.total / self.count


class _BatchOnly(RunningMean):
    def update(self, x):
        return x.mean(axis=0)


VARIANTS = {"batch_only": ("The mean is of this batch only: keep the running total and count "
                           "between calls.", _BatchOnly)}
'''

LINEAR_BATTERY = """
function: Linear.forward
module: layers.py
reference: {function: Linear.forward, outputs: [y]}
init:
  d_in: {size: d_in}
  d_out: {size: d_out}
  rng: {generator: true}
parameters:
  x: {array: [n, d_in]}
dims:
  n: {range: [1, 4]}
  d_in: {range: [2, 6]}
  d_out: {range: [2, 6]}
cases:
  - {name: drawn, repeat: 3}
checks:
  interface: {description: "Linear(d_in, d_out, rng).forward(x) returns an (n, d_out) array",
              interface: true}
  values: {description: "x @ W + b with W drawn from rng as asked", allclose: y}
"""

MEAN_BATTERY = """
function: RunningMean.update
module: layers.py
reference: {function: RunningMean.update, outputs: [mean]}
init:
  d: {size: d}
parameters:
  x: {array: [n, d]}
dims:
  n: {range: [1, 4]}
  d: {range: [2, 6]}
cases:
  - {name: first batch}
  - {name: second batch, group: state, same_instance: true}
  - {name: third batch, group: state, same_instance: true}
checks:
  first: {description: "the mean of the first batch", allclose: mean}
  state: {description: "the mean of every row seen so far", groups: [state], allclose: mean}
variants: VARIANTS
"""


def _rubric(slug: str, battery: str, checks: tuple[str, ...]) -> str:
    items = "\n".join(f"      - {{id: {slug}.{c}, points: 1, grader: code, "
                      f"config: {{battery: {battery}, check: {c}}}}}" for c in checks)
    return f"""slug: {slug}
title: {slug}
questions:
  - id: Q1
    title: {slug}
    labels: ["Q1"]
    answer_kind: code
    items:
{items}
"""


def write_batteries(folder: Path) -> tuple[Path, Path]:
    """The rubrics (Linear, RunningMean), with their batteries and module beside them."""
    (folder / "layers.py").write_text(LINEAR_MODULE)
    (folder / "linear.yaml").write_text(LINEAR_BATTERY)
    (folder / "mean.yaml").write_text(MEAN_BATTERY)
    linear = folder / "linear-rubric.yaml"
    linear.write_text(_rubric("linear", "linear.yaml", ("interface", "values")))
    mean = folder / "mean-rubric.yaml"
    mean.write_text(_rubric("mean", "mean.yaml", ("first", "state")))
    return linear, mean
