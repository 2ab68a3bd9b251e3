# Homework 6 -- Ned Kowalski
# Q1: (a) m_hat_2 = 0.2895  (b) v_hat_2 = 0.1299  (c) delta theta = -0.000803
# Q2: (a) g = (p - y) / T   (b) h = lambda * w
# Q3: (a) 2.6 GB  (b) 20.8 GB  (c) 1 GiB
import numpy as np


# Q4
def clip_by_global_norm(grads, max_norm=1.0):
    norm = np.linalg.norm(grads)
    coef = max_norm / (norm + 1e-6)
    if coef < 1:
        grads = grads * coef
    return grads, norm


# Q5
def lr_schedule(num_steps, warmup, peak_lr=1e-3):
    s = np.arange(1, num_steps + 1)
    return peak_lr * np.minimum(s / warmup, (s / warmup) ** -0.5)


# Q6
class EMA:
    def __init__(self, decay=0.999):
        self.decay = decay
        self.avg = None

    def update(self, params):
        if self.avg is None:
            self.avg = params.copy()
        else:
            self.avg += (1 - self.decay) * (params - self.avg)
        return self.avg


# Q7: (a) at train time each activation is dropped (zeroed) with probability p and the kept
# ones are scaled by 1/(1-p) to keep the expected activation the same.
# (b) at eval time dropout does nothing (identity).

# Q8: gradient checkpointing (recompute activations instead of storing them) and
# mixed precision training (16-bit weights and activations).
