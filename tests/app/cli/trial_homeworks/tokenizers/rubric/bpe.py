"""Reference and known bugs for Homework 11's BPE questions: run by the grader, never by
students."""

import numpy as np


def bpe_merge(ids, pair, new_id):
    out = []
    i = 0
    n = len(ids)
    while i < n:
        if i < n - 1 and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return np.array(out, dtype=np.int64)


def _misses_last(ids, pair, new_id):
    out = []
    i = 0
    n = len(ids)
    while i < n:
        if i < n - 2 and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new_id)
            i += 2
        else:
            out.append(ids[i])
            i += 1
    return np.array(out, dtype=np.int64)


def _first_only(ids, pair, new_id):
    ids = list(ids)
    for i in range(len(ids) - 1):
        if ids[i] == pair[0] and ids[i + 1] == pair[1]:
            return np.array([*ids[:i], new_id, *ids[i + 2:]], dtype=np.int64)
    return np.array(ids, dtype=np.int64)


def _no_skip(ids, pair, new_id):
    # replaces the pair but then also keeps its second token
    out = []
    n = len(ids)
    for i in range(n):
        if i < n - 1 and ids[i] == pair[0] and ids[i + 1] == pair[1]:
            out.append(new_id)
        else:
            out.append(ids[i])
    return np.array(out, dtype=np.int64)


MERGE_VARIANTS = {
    "misses_last": ("The pair at the very end of the sequence is not merged: the loop stops one "
                    "position too early.", _misses_last),
    "first_only": ("Only the first occurrence of the pair is merged; every occurrence must be.",
                   _first_only),
    "no_skip": ("After a merge the loop does not skip the pair's second token, so it is kept "
                "beside the new id.", _no_skip),
}


def count_pairs(ids):
    counts = {}
    for i in range(len(ids) - 1):
        key = (int(ids[i]), int(ids[i + 1]))
        counts[key] = counts.get(key, 0) + 1
    return counts
