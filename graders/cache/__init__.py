"""Content-addressed grading results: what a regrade may reuse instead of recomputing.

Three layers, each keyed by a hash of exactly what determines it (and of the grader code):

- `location`: a document's parsed and located answers, by the upload's bytes and the rubric's
  question structure (prompts, labels, cues), never its points or feedback;
- `group`: one grader's results for one question's items of its kind, by the located
  submission, the items as the rubric states them, the results they read from earlier items
  and the operator's options;
- `sandbox`: what a code job observed in the sandbox, by the exact job (source, input arrays,
  calls, time limit), the sandbox policy, and the sandbox, NumPy and Python versions.

A points change misses only the groups of the changed items, and those re-run their grader on
the stored location and sandbox observations; a battery change misses the sandbox layer too.
Storage is outside this package (a `ResultStore`); every value read is checked and validated,
and anything unreadable is a miss.

A regrade reads them back without the upload: its plan (`plan`), a stored run re-scored from
its keys (`rescore`) and settled from its stored totals (`settle`), all without a database.
"""

from graders.cache.core import (
    CACHE_KEY,
    NO_CACHE,
    CacheStats,
    MemoryStore,
    ResultCache,
    ResultStore,
    result_cache,
)

__all__ = [
    "CACHE_KEY",
    "NO_CACHE",
    "CacheStats",
    "MemoryStore",
    "ResultCache",
    "ResultStore",
    "result_cache",
]
