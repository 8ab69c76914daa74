"""The numba decorators every compiled loop of Subflow uses: the planners' kernels and the engines'.

``njit`` and ``prange`` are numba's (a pinned dependency). Without numba they fall back to the
identity decorator and :func:`range`, and the kernels run as plain, slow but identical Python.
Compiled functions pass ``cache=True``; the cache lives in each module's ``__pycache__`` (set
``NUMBA_CACHE_DIR`` on a read-only image).
"""

from __future__ import annotations

__all__ = ["njit", "prange"]

try:  # pragma: no cover - exercised implicitly
    from numba import njit, prange
except ImportError:  # pragma: no cover
    prange = range

    def njit(*args, **kwargs):
        """Identity decorator standing in for :func:`numba.njit` when numba is missing."""
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]
        return lambda f: f
