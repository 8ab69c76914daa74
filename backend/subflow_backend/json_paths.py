"""Where in a JSON document something is wrong: paths of the values (and keys) a predicate flags."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Path = tuple[Any, ...]


def json_paths(value: Any, flagged: Callable[[Any], bool], loc: Path = ()) -> list[Path]:
    """JSON paths of the leaves of ``value``, and of its object keys, for which ``flagged`` is true.

    Parameters
    ----------
    value : Any
        A decoded JSON document (dicts, lists or tuples, and scalars).
    flagged : callable
        ``flagged(x) -> bool`` for a leaf or an object key.
    loc : tuple
        Path of ``value`` itself (keys and list indices).

    Returns
    -------
    list of tuple
        Paths in document order, a key's path before the paths inside its value.

    Examples
    --------
    >>> json_paths({"a": [1, "x\\x00"], "b\\x00": 2}, lambda v: isinstance(v, str) and "\\x00" in v)
    [('b\\x00',), ('a', 1)]
    """
    if isinstance(value, dict):
        found = [(*loc, k) for k in value if flagged(k)]
        for k, v in value.items():
            found += json_paths(v, flagged, (*loc, k))
        return found
    if isinstance(value, (list, tuple)):
        return [p for i, v in enumerate(value) for p in json_paths(v, flagged, (*loc, i))]
    return [loc] if flagged(value) else []
