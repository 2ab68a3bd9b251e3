"""HW6 code part, Dan Petrov."""
import math

import numpy as np


# Q4
def clip_by_global_norm(grads, max_norm=1.0):
    sq = float(np.sum(grads * grads))
    if sq > max_norm:
        grads = grads * max_norm / sq
    return grads, sq


# Q5 (the Noam formula)
def lr_schedule(num_steps, warmup, peak_lr=1e-3):
    out = []
    for step in range(1, num_steps + 1):
        out.append(peak_lr * math.sqrt(warmup) * min(step ** -0.5, step * warmup ** -1.5))
    return out


# Q6
class EMA:
    def __init__(self, beta=0.999):
        self.beta = beta
        self.value = None

    def update(self, params):
        params = np.asarray(params, dtype=float)
        if self.value is None:
            self.value = params.copy()
        else:
            self.value = self.beta * self.value + (1.0 - self.beta) * params
        return self.value


if __name__ == "__main__":
    print(lr_schedule(10, 3))
