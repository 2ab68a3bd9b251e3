"""References and known bugs for homework 6 (training): run by the grader, never by students."""

import numpy as np


def clip_by_global_norm(grads, max_norm=1.0):
    norm = float(np.sqrt(np.sum(grads ** 2)))
    if norm > max_norm:
        return grads * (max_norm / norm), norm
    return grads.copy(), norm


def _per_row(grads, max_norm=1.0):
    norms = np.sqrt(np.sum(grads ** 2, axis=1, keepdims=True))
    scale = np.minimum(1.0, max_norm / norms)
    return grads * scale, float(np.sqrt(np.sum(grads ** 2)))


def _always_scale(grads, max_norm=1.0):
    norm = float(np.sqrt(np.sum(grads ** 2)))
    return grads * (max_norm / norm), norm


def _squared_norm(grads, max_norm=1.0):
    norm = float(np.sum(grads ** 2))
    if norm > max_norm:
        return grads * (max_norm / norm), norm
    return grads.copy(), norm


CLIP_VARIANTS = {
    "per_row": ("Clipped each row by its own norm; the global norm is over all the gradients "
                "together.", _per_row),
    "always_scaled": ("Scaled the gradients even when the norm is below max_norm; they should "
                      "then be left unchanged.", _always_scale),
    "squared_norm": ("Used the sum of squares as the norm; take its square root.",
                     _squared_norm),
}


def lr_schedule(num_steps, warmup, peak_lr=1e-3):
    s = np.arange(1, num_steps + 1, dtype=float)
    return peak_lr * np.minimum(s / warmup, np.sqrt(warmup / s))


def _from_zero(num_steps, warmup, peak_lr=1e-3):
    s = np.arange(0, num_steps, dtype=float)
    with np.errstate(divide="ignore"):
        return peak_lr * np.minimum(s / warmup, np.sqrt(warmup / np.maximum(s, 1e-12)))


def _inverse_decay(num_steps, warmup, peak_lr=1e-3):
    s = np.arange(1, num_steps + 1, dtype=float)
    return peak_lr * np.minimum(s / warmup, warmup / s)


def _warmup_only(num_steps, warmup, peak_lr=1e-3):
    s = np.arange(1, num_steps + 1, dtype=float)
    return peak_lr * np.minimum(s / warmup, 1.0)


SCHEDULE_VARIANTS = {
    "from_zero": ("Counted the steps from 0 (the first rate is 0); the question counts s = 1, "
                  "..., num_steps.", _from_zero),
    "inverse_decay": ("Decayed as warmup / s; the decay is the inverse square root, "
                      "sqrt(warmup / s).", _inverse_decay),
    "warmup_only": ("No decay after the warm-up.", _warmup_only),
}


class EMA:
    def __init__(self, decay=0.999):
        self.decay = decay
        self.average = None

    def update(self, params):
        if self.average is None:
            self.average = np.array(params, dtype=float, copy=True)
        else:
            self.average = self.decay * self.average + (1 - self.decay) * params
        return self.average.copy()


class _ZeroStart(EMA):
    def update(self, params):
        if self.average is None:
            self.average = np.zeros_like(params, dtype=float)
        self.average = self.decay * self.average + (1 - self.decay) * params
        return self.average.copy()


class _Swapped(EMA):
    def update(self, params):
        if self.average is None:
            self.average = np.array(params, dtype=float, copy=True)
        else:
            self.average = (1 - self.decay) * self.average + self.decay * params
        return self.average.copy()


class _NoState(EMA):
    def update(self, params):
        return np.array(params, dtype=float, copy=True)


EMA_VARIANTS = {
    "zero_start": ("Started the average at zeros; the first call stores a copy of params.",
                   _ZeroStart),
    "swapped": ("decay and 1 - decay are swapped: the average keeps decay of itself.",
                _Swapped),
    "no_state": ("The average is not kept between calls.", _NoState),
}
