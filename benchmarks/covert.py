"""The residual channel between two students' concurrent jobs: memory-bandwidth timing.

    python benchmarks/covert.py [--runs 4] [--slots-ms 10,25,50] [--no-write]

Two sandboxed jobs (each in its own zygote, as two grading processes run them) start together.
The sender is given a random bit string; in each time slot it streams through 192 MB of arrays
(a 1) or spins on the clock (a 0). The receiver is given nothing: it counts how many passes over
a 64 MB array it completes in each slot and returns the counts, the only thing a job can hand
back. Slots are aligned on the wall clock both jobs read. The receiver's counts are decoded by
their median (a slow slot reads as 1) and compared with the bits sent.

The rate reported is the capacity of the binary symmetric channel with the measured error rate:
(1 - H(error)) / slot bits per second, and the bits one pair of jobs could pass within the
sandbox's time limit. Everything a job can do here is what student code may do: NumPy, the
clock, its own memory.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import statistics
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(REPO), str(REPO / "benchmarks")]

import numpy as np  # noqa: E402
from report import write_section  # noqa: E402

from graders.sandbox import Call, Job, Sandbox, SandboxPolicy  # noqa: E402

JOB_SECONDS = 2.0  # the sandbox's default wall-clock limit per job (SandboxPolicy.timeout_s)
START_DELAY_S = 0.4  # both zygotes fork and import before the first slot

SENDER = """
import time
import numpy as np

def send():
    a = np.ones(12_000_000)
    b = np.empty_like(a)
    while time.time() < T0:
        pass
    for i, bit in enumerate(BITS):
        end = T0 + (i + 1) * SLOT
        if bit:
            while time.time() < end:
                np.copyto(b, a)
        else:
            while time.time() < end:
                pass
    return np.zeros(1)
"""

RECEIVER = """
import time
import numpy as np

def measure():
    buf = np.ones(8_000_000)
    lines = buf[::8]  # one double per 64-byte cache line: every pass reads all 64 MB
    out = np.zeros(N)
    chunk = len(lines) // 16
    while time.time() < T0:
        pass
    for i in range(N):
        end = T0 + (i + 1) * SLOT
        count = 0
        k = 0
        while time.time() < end:
            lines[k * chunk:(k + 1) * chunk].sum()
            k = (k + 1) % 16
            count += 1
        out[i] = count
    return out
"""


def _entropy(p: float) -> float:
    if p <= 0 or p >= 1:
        return 0.0
    return -p * math.log2(p) - (1 - p) * math.log2(1 - p)


def one_run(sender: Sandbox, receiver: Sandbox, slot: float, seed: int) -> tuple[int, int]:
    """(bits decoded correctly, bits sent) for one pair of concurrent jobs."""
    count = int((JOB_SECONDS - START_DELAY_S - 0.3) / slot)
    draw = random.Random(seed)
    bits = [draw.randint(0, 1) for _ in range(count)]
    t0 = time.time() + START_DELAY_S
    shared = f"T0 = {t0!r}\nSLOT = {slot!r}\n"
    send_job = Job(shared + f"BITS = {bits!r}\n" + SENDER, (), (Call("send", ()),),
                   timeout_s=JOB_SECONDS)
    receive_job = Job(shared + f"N = {count}\n" + RECEIVER, (), (Call("measure", ()),),
                      timeout_s=JOB_SECONDS)
    with ThreadPoolExecutor(2) as pool:
        sent = pool.submit(sender.run, send_job)
        got = pool.submit(receiver.run, receive_job)
        outcome = got.result()
        sent.result()
    call = outcome.calls[0]
    if outcome.status != "completed" or call is None or call.value is None:
        return 0, count
    counts = np.asarray(call.value.array, dtype=float)
    threshold = statistics.median(counts)
    decoded = [1 if c < threshold else 0 for c in counts]
    right = sum(int(d == b) for d, b in zip(decoded, bits, strict=True))
    return right, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=4)
    parser.add_argument("--slots-ms", default="10,25,50")
    parser.add_argument("--no-write", action="store_true")
    args = parser.parse_args()
    policy = SandboxPolicy(timeout_s=JOB_SECONDS)
    sender, receiver = Sandbox(policy), Sandbox(policy)
    rows = []
    summary = {}
    load_before = os.getloadavg()[0]
    try:
        sender.layers()
        receiver.layers()
        for slot_ms in [float(s) for s in args.slots_ms.split(",")]:
            results = [one_run(sender, receiver, slot_ms / 1000, seed)
                       for seed in range(args.runs)]
            right = sum(r for r, _ in results)
            total = sum(n for _, n in results)
            error = 1 - right / total if total else 0.5
            # decoding by the median cannot tell which way round the bits are: an error rate
            # over a half is the same channel read inverted
            error = min(error, 1 - error)
            rate = (1 - _entropy(error)) * 1000 / slot_ms
            per_run = ", ".join(f"{r}/{n}" for r, n in results)
            rows.append(f"| {slot_ms:g} ms | {per_run} | {100 * error:.1f}% | {rate:.1f} | "
                        f"{rate * JOB_SECONDS:.0f} |")
            summary[slot_ms] = {"error": error, "bits_per_s": rate}
    finally:
        del sender, receiver
    best = max(summary.values(), key=lambda s: s["bits_per_s"])
    body = (
        "## Covert channel between two students' concurrent jobs (memory bandwidth)\n\n"
        f"`benchmarks/covert.py`: two sandboxed jobs at once, each in its own zygote (as two "
        f"grading processes run them); the sender streams 192 MB per 1-bit slot, the receiver "
        f"counts passes over 64 MB per slot and returns the counts; {args.runs} runs per slot "
        f"length, random bits, decoded by the median.\n\n"
        "| slot | bits right per run | error | capacity (bit/s) | bits per pair of 2 s jobs |\n"
        "|---|---|---|---|---|\n" + "\n".join(rows) + "\n\n"
        f"At best about **{best['bits_per_s']:.0f} bit/s** ({100 * best['error']:.1f}% errors) "
        f"on this machine while it was shared with other work (load average "
        f"{load_before:.1f} → {os.getloadavg()[0]:.1f} on 2 cores: the jobs competed with other "
        "processes for the cores; on an idle host the channel is likely cleaner). A pair of "
        "jobs lasts at most the sandbox's 2 s limit, so one pair passes about "
        f"{2 * best['bits_per_s']:.0f} bits at this rate, and only when the two students' "
        "jobs happen to run at the same moment. "
        "`GRADEFORMER_WORKERS=1` (one job at a time) closes the channel; pinning the two "
        "grading processes to different cores would not, as the memory bus and the last-level "
        "cache are shared by all cores.\n"
    )
    print(body)
    print(json.dumps(summary))
    if not args.no_write:
        write_section("covert", body)


if __name__ == "__main__":
    main()
