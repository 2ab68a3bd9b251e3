"""A student's NumPy positional encoding for the docs' example battery
(docs/examples/positional-encoding), written once for the tests and the sandbox benchmark:
`PE` with its return expression left open, `CORRECT` the right one (float16, as asked)."""

PE = """import numpy as np

def pos_encoding(position, d_model):
    if position == 0 or d_model <= 0:
        return -1
    pos = np.arange(position)[:, None]
    i = np.arange(d_model)[None, :]
    angles = pos / np.power(10000, (2 * (i // 2)) / d_model)
    angles[:, 0::2] = np.sin(angles[:, 0::2])
    angles[:, 1::2] = np.cos(angles[:, 1::2])
    return {result}
"""
CORRECT = PE.format(result="angles.astype(np.float16)")
