"""References and known bugs for homework 9 (LoRA adapters and int8 quantization): run by the
grader, never by students."""

import numpy as np


def _lora(x, W, A, B, alpha, *, scale="ratio"):
    r = A.shape[1]
    factor = {"ratio": alpha / r, "alpha": alpha, "none": 1.0, "inverse": r / alpha}[scale]
    return x @ W + factor * ((x @ A) @ B)


def lora_forward(x, W, A, B, alpha):
    return _lora(x, W, A, B, alpha)


def _scaled_by_alpha(x, W, A, B, alpha):
    return _lora(x, W, A, B, alpha, scale="alpha")


def _unscaled(x, W, A, B, alpha):
    return _lora(x, W, A, B, alpha, scale="none")


def _inverse(x, W, A, B, alpha):
    return _lora(x, W, A, B, alpha, scale="inverse")


def _adapter_only(x, W, A, B, alpha):
    return (alpha / A.shape[1]) * ((x @ A) @ B)


LORA_VARIANTS = {
    "alpha": ("the update is scaled by alpha, not alpha / r", _scaled_by_alpha),
    "unscaled": ("the update x A B is not scaled by alpha / r", _unscaled),
    "inverse": ("the update is scaled by r / alpha, not alpha / r", _inverse),
    "adapter only": ("the frozen x W is left out: only the adapter's update is returned",
                     _adapter_only),
}


def _quantize(w, *, levels=127, rounding=np.round):
    scale = np.max(np.abs(w)) / levels
    q = np.clip(rounding(w / scale), -127, 127).astype(np.int8)
    return q, scale


def quantize_int8(w):
    return _quantize(w)


def _by_128(w):
    return _quantize(w, levels=128)


def _by_255(w):
    return _quantize(w, levels=255)


def _truncated(w):
    return _quantize(w, rounding=np.trunc)


def _floored(w):
    return _quantize(w, rounding=np.floor)


QUANT_VARIANTS = {
    "128": ("the scale is max|w| / 128: the int8 range used is [-127, 127]", _by_128),
    "255": ("the scale is max|w| / 255, an asymmetric code's step, for a symmetric code",
            _by_255),
    "truncated": ("w / scale is truncated (astype without rounding), not rounded", _truncated),
    "floored": ("w / scale is floored, not rounded to the nearest integer", _floored),
}
