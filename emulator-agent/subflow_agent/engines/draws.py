"""Counter-based uniform draws shared by the fluid engine's two kernels.

A draw is a pure function of (run seed, subflow id, step): SplitMix64
(Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
OOPSLA 2014) applied to a key mixed from the three. Both kernels therefore
see the same draw for the same subflow at the same step, whatever order they
visit subflows in, and a run stays deterministic for its seed.

>>> k = subflow_key(1, "f1/tcp")
>>> 0.0 <= uniform(k, 10) < 1.0 and uniform(k, 10) == uniform(k, 10) != uniform(k, 11)
True
>>> import numpy as np
>>> float(uniform_array(np.array([k], dtype=np.uint64), 10)[0]) == uniform(k, 10)
True
"""

from __future__ import annotations

import hashlib

import numpy as np

_M64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15
_STEP = 0xD1B54A32D192ED03


def subflow_key(seed: int, subflow_id: str) -> int:
    """64-bit key of one subflow in one run (``seed``: the plan's seed)."""
    return int.from_bytes(hashlib.blake2b(f"{seed}|{subflow_id}".encode(), digest_size=8).digest(), "little")


def uniform(key: int, step: int) -> float:
    """The draw in [0, 1) of subflow ``key`` at time step ``step``."""
    z = (key ^ ((step * _STEP) & _M64)) + _GOLDEN & _M64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _M64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _M64
    z ^= z >> 31
    return (z >> 11) * (1.0 / (1 << 53))


def uniform_array(keys: np.ndarray, step: int) -> np.ndarray:
    """:func:`uniform` for an array of ``uint64`` keys at one step."""
    with np.errstate(over="ignore"):
        z = (keys ^ np.uint64((step * _STEP) & _M64)) + np.uint64(_GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z ^= z >> np.uint64(31)
    return (z >> np.uint64(11)).astype(np.float64) * (1.0 / (1 << 53))
