"""The Redis transport with one priority level per turn of a student's fair share.

Kombu's Redis transport keeps one list per priority level and clamps priorities to 0-9
(`max_priority` of its virtual channel): with ten levels, students with ten or more jobs
waiting shared the last level first in, first out. Here the levels go to PRIORITIES - 1, so a
student's k-th outstanding job waits behind every other student's k-th for any k below that
(app/worker/executor.py). A worker polls every level's list with one BRPOP, lowest first.
"""

from __future__ import annotations

from kombu.transport import redis as kombu_redis

PRIORITIES = 64  # levels 0 (first) to 63; a student's 64th and later waiting jobs share 63
TRANSPORT = f"{__name__}:Transport"  # the `broker_transport` setting


class Channel(kombu_redis.Channel):
    # the levels themselves: `priority_steps` in the transport options (app/worker/tasks.py)
    max_priority = PRIORITIES - 1


class Transport(kombu_redis.Transport):
    Channel = Channel
