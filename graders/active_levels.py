"""The chooser's doubt across an assignment's items: the machine's error probability of each
undecided answer, rescaled by what the item's decisions found at that answer's level of points.

A grader that is wrong about one level of one item is wrong there for most answers it puts
there: a reference that a class answers in other words than its author's puts the complete
answers at 3-3.5 of 5 (too low), a reference whose key words an incomplete answer repeats puts
it at 3.5-4 (too high). On Mohler the errors are concentrated that way (8 of the 37 questions
of 1-6 and 12 of the 44 of 7-12 have more than a fifth of their answers more than 1 point off,
mostly in one direction at one or two levels; docs/active-grading.md). Each decision tells
whether the machine's suggestion for that answer was wrong; where the decisions at a level of
an item found more errors than the machine predicted there, its other answers at that level are
likelier wrong than it says, and where they found it right, less. The ratio of errors seen to
errors predicted among the item's held-back checks whose suggestion lay within `LEVEL_WIDTH` of
the tolerance of the answer's suggestion, shrunk toward 1 by `LEVEL_PRIOR` predicted errors,
multiplies the answer's error probability (at most 1).

Only the chooser across items reads it (`app.active.assignment`): it ranks the items (their
least sure answer by this doubt) and each item's proposals. The estimate, *done*, the random
checks and each item's own page keep the machine's doubt: the same checks counted again by the
estimate made *done* come early on the answer-groups course (docs/active-grading.md, fifth
round), and item by item, with equal shares, it gained on Mohler 1-6 and lost on 7-12.
"""

from __future__ import annotations

from collections.abc import Sequence

from graders.active import HeldBack

LEVEL_PRIOR = 1.0  # predicted errors' worth of belief in the machine at each level
LEVEL_WIDTH = 0.25  # of the tolerance: a held-back check at most this far is at the level


def by_level(errors: Sequence[float], points: Sequence[float], held: Sequence[HeldBack],
             tolerance: float) -> list[float]:
    """Each answer's error probability (`errors`, its suggestion `points`) times the errors
    seen over the errors predicted among the `held` checks whose suggestion (`HeldBack.points`)
    lay within `LEVEL_WIDTH` x `tolerance` of it, with `LEVEL_PRIOR` predicted errors' worth of
    belief that the machine is calibrated there; at most 1. Without checks at a level, the
    machine's own."""
    width = LEVEL_WIDTH * tolerance + 1e-9
    out = []
    for error, at in zip(errors, points, strict=True):
        near = [h for h in held if abs(h.points - at) <= width]
        seen = sum(h.wrong for h in near)
        predicted = sum(h.error_probability for h in near)
        out.append(min(1.0, error * (seen + LEVEL_PRIOR) / (predicted + LEVEL_PRIOR)))
    return out
