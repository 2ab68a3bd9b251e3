"""A Celery queue of a test's own on the Redis every machine runs (127.0.0.1:6379): the
service's Celery app publishes to it while the test runs, and its lists are deleted after."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import redis

from app.worker import fair_redis, tasks

BROKER = "redis://127.0.0.1:6379/0"


@contextmanager
def private_queue(prefix: str) -> Iterator[str]:
    """A fresh queue name set as the Celery app's default queue (broker and results on
    BROKER), restored afterwards; skips the test when Redis does not answer."""
    try:
        redis.Redis.from_url(BROKER, socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        pytest.skip(f"Redis at 127.0.0.1:6379 is unreachable: {type(exc).__name__}")
    queue = f"{prefix}-{secrets.token_hex(4)}"
    conf = tasks.celery_app.conf
    saved = (conf.task_default_queue, conf.broker_url, conf.result_backend)
    conf.task_default_queue = queue
    conf.broker_url = conf.result_backend = BROKER
    try:
        yield queue
    finally:
        conf.task_default_queue, conf.broker_url, conf.result_backend = saved
        # the queue's list for priority 0 and one more for each other priority
        redis.Redis.from_url(BROKER).delete(
            queue, *(f"{queue}:{p}" for p in range(1, fair_redis.PRIORITIES)))
