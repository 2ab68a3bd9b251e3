"""Sandbox runs through the cache: a job already observed is not run again."""

from __future__ import annotations

from typing import TYPE_CHECKING

from graders.cache.codecs import decode_outcome, encode_outcome
from graders.cache.core import result_cache
from graders.cache.keys import sandbox_key

if TYPE_CHECKING:  # the group keys import UNCACHEABLE from here, without the sandbox
    from graders.context import GradingContext
    from graders.sandbox import Job, JobOutcome, Sandbox

# Set in GradingContext.per_submission when a result rests on something not worth keeping (a
# timeout, a died child, an insecure run): the engine then stores no group result from it.
UNCACHEABLE = "cache.uncacheable"


def run_cached(sandbox: Sandbox, job: Job, context: GradingContext) -> JobOutcome:
    """`sandbox.run(job)`, or the stored outcome of the same job. Only completed, secure runs
    are stored: a timeout or a killed child may go otherwise on another try."""
    cache = result_cache(context.resources)
    if not cache.enabled:
        return sandbox.run(job)
    # The same refusal as an uncached run when the required layers are missing now.
    if sandbox.missing_required() and not sandbox.policy.allow_insecure:
        return sandbox.run(job)
    key = sandbox_key(job.source, job.arrays, job.calls, job.timeout_s, sandbox.policy)
    stored = cache.load(key, decode_outcome)
    if stored is not None:
        cache.stats.code_cached += 1
        return stored
    outcome = sandbox.run(job)
    cache.stats.code_runs += 1
    if outcome.status == "completed" and not outcome.insecure:
        cache.save(key, encode_outcome(outcome))
    elif context.per_submission is not None:
        context.per_submission[UNCACHEABLE] = True
    return outcome
