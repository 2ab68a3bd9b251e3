"""A queue that takes turns between students: one student's burst of uploads waits behind every
other student's next job, not in front of it.

Jobs are kept per owner (the student a submission is filed under, else its uploader). The next
job goes to the owner with the fewest jobs already running (as the caller counts them), ties
broken round robin: each owner with waiting work gets one job per turn, in the order owners
first had work waiting. Within one owner the order is first in, first out.
"""

from __future__ import annotations

from collections import OrderedDict, deque
from collections.abc import Callable, Hashable, Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class FairQueue(Generic[T]):
    def __init__(self) -> None:
        self._by_owner: OrderedDict[Hashable, deque[T]] = OrderedDict()
        self._size = 0

    def push(self, owner: Hashable, item: T) -> None:
        self._by_owner.setdefault(owner, deque()).append(item)
        self._size += 1

    def pop(self, running: Callable[[Hashable], int] | None = None) -> tuple[Hashable, T]:
        """The oldest item of the owner with the fewest `running` (the first in turn order
        among equals); that owner goes to the back of the turn order."""
        # min keeps the first of equals: the turn order
        owner = next(iter(self._by_owner)) if running is None else min(self._by_owner, key=running)
        items = self._by_owner[owner]
        item = items.popleft()
        if items:
            self._by_owner.move_to_end(owner)
        else:
            del self._by_owner[owner]
        self._size -= 1
        return owner, item

    def clear(self) -> None:
        self._by_owner.clear()
        self._size = 0

    def __len__(self) -> int:
        return self._size

    def __iter__(self) -> Iterator[T]:
        for items in self._by_owner.values():
            yield from items
