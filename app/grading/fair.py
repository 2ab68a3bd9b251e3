"""A queue that takes turns between students: one student's burst of uploads waits behind every
other student's next job, not in front of it.

Jobs are kept per owner (the student a submission is filed under, else its uploader). The next
job goes to the owner with the fewest jobs already running (as the caller counts them), ties
broken by the owner served longest ago (one never served first), then in the order owners
first had work waiting: a student who arrives behind a flood waits for the jobs already
started, not for the flood's next one too. Within one owner the order is first in, first out.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict, deque
from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class FairQueue(Generic[T]):
    def __init__(self) -> None:
        self._by_owner: OrderedDict[Hashable, deque[T]] = OrderedDict()
        # owner -> its last turn, kept while it has none waiting (its jobs may still run):
        # one number per student the server has seen
        self._served: dict[Hashable, int] = {}
        self._turns = itertools.count()

    def push(self, owner: Hashable, item: T) -> None:
        self._by_owner.setdefault(owner, deque()).append(item)

    def pop(self, running: Callable[[Hashable], int] | None = None) -> tuple[Hashable, T]:
        """The oldest item of the owner with the fewest `running` (among equals the one served
        longest ago, then the first in turn order); that owner goes to the back of the turn
        order."""
        if running is None:
            owner = next(iter(self._by_owner))
        else:  # min keeps the first of equals: the turn order
            owner = min(self._by_owner, key=lambda o: (running(o), self._served.get(o, -1)))
        items = self._by_owner[owner]
        item = items.popleft()
        self._served[owner] = next(self._turns)
        if items:
            self._by_owner.move_to_end(owner)
        else:
            del self._by_owner[owner]
        return owner, item

    def clear(self) -> None:
        self._by_owner.clear()
        self._served.clear()

    def __len__(self) -> int:
        return sum(map(len, self._by_owner.values()))

    def __iter__(self) -> Iterator[T]:
        for items in self._by_owner.values():
            yield from items
