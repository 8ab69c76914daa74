"""Counter-based uniform draws shared by the fluid engine's two kernels.

A draw is a pure function of (run seed, subflow id, step): SplitMix64
(Steele, Lea, Flood, "Fast splittable pseudorandom number generators",
OOPSLA 2014) applied to a key mixed from the three. Both kernels call the one
compiled :func:`uniform` below, so they see the same draw for the same
subflow at the same step, whatever order they visit subflows in, and a run
stays deterministic for its seed.

>>> k = subflow_key(1, "f1/tcp")
>>> 0.0 <= uniform(k, 10) < 1.0 and uniform(k, 10) == uniform(k, 10) != uniform(k, 11)
True
"""

from __future__ import annotations

import hashlib

import numpy as np

from subflow.compiled import njit

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_STEP = np.uint64(0xD1B54A32D192ED03)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


#: suffixes of a subflow id naming its other draw streams: random link loss, and the
#: timeout decisions (loss episode ends in an RTO; a retransmission after an RTO is lost)
LOSS_STREAM = "|loss"
TIMEOUT_STREAM = "|timeout"


def subflow_key(seed: int, subflow_id: str) -> np.uint64:
    """64-bit key of one subflow in one run (``seed``: the plan's seed)."""
    return np.uint64(int.from_bytes(hashlib.blake2b(f"{seed}|{subflow_id}".encode(), digest_size=8).digest(), "little"))


@njit(cache=True, nogil=True)
def uniform(key, step):
    """The draw in [0, 1) of subflow ``key`` (a ``numpy.uint64`` from :func:`subflow_key`) at time step ``step``."""
    z = (key ^ (np.uint64(step) * _STEP)) + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)
