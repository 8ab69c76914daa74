"""schemathesis hooks for ``test_schemathesis.py`` (loaded by ``st run`` through ``SCHEMATHESIS_HOOKS``).

The run authenticates with a personal API token; ``DELETE /api/users/me/tokens/{token_id}`` with
that token's own id (``SUBFLOW_FUZZ_TOKEN_ID``) would revoke it and turn the rest of the run
into 401s, so that one value is never generated. Every other id is fair game.

Inputs JSON Schema generators rarely produce, which once answered 500: a lone UTF-16 surrogate in a
text field (``"\\ud800"`` is valid JSON but no UTF-8 text) and integers beyond 64 bits (2^64 + 1, past
every database integer). Each generated JSON body is sent as generated or with one such value put in
(the first string / integer met), each path and query as generated or with a 65-bit integer, chosen by
hypothesis like the rest of the case. A lone surrogate travels only in JSON (escaped as ``\\ud800``):
a URL, a form or a multipart body would need it in UTF-8, which the client cannot write.

The stateful phase runs with ``SUBFLOW_FUZZ_SURROGATES=0`` (no lone surrogate): when a link fills part of a
chained case, schemathesis re-validates the case before sending it and cannot encode a lone surrogate there
(``UnicodeEncodeError`` inside schemathesis, a client-side runtime error before any request). The other
phases send them.
"""

from __future__ import annotations

import os
from typing import Any

import schemathesis
from hypothesis import strategies as st

PROTECTED_TOKEN_ID = os.environ.get("SUBFLOW_FUZZ_TOKEN_ID", "")
LONE_SURROGATE = "\ud800"
SURROGATES = os.environ.get("SUBFLOW_FUZZ_SURROGATES", "1") != "0"
HUGE_INT = 2**64 + 1


@schemathesis.hook
def filter_path_parameters(ctx, path_parameters):  # noqa: ANN001 - schemathesis hook signature
    """Never revoke the token the run authenticates with."""
    return not (path_parameters and PROTECTED_TOKEN_ID and path_parameters.get("token_id") == PROTECTED_TOKEN_ID)


def _replace_first(value: Any, kind: type, new: Any) -> tuple[Any, bool]:
    """``value`` with its first leaf of ``kind`` (depth first; bools are no ints) replaced by ``new(leaf)``."""
    if isinstance(value, kind) and not isinstance(value, bool):
        return new(value), True
    if isinstance(value, dict):
        out = dict(value)
        for k, v in value.items():
            out[k], done = _replace_first(v, kind, new)
            if done:
                return out, True
    if isinstance(value, list):
        out_list = list(value)
        for i, v in enumerate(value):
            out_list[i], done = _replace_first(v, kind, new)
            if done:
                return out_list, True
    return value, False


def _json_body(ctx) -> bool:  # noqa: ANN001 - schemathesis HookContext
    """Whether the operation's request body is JSON (the only place a lone surrogate can travel)."""
    raw = getattr(getattr(getattr(ctx, "operation", None), "definition", None), "raw", None) or {}
    return any("json" in media for media in ((raw.get("requestBody") or {}).get("content") or {}))


@schemathesis.hook
def flatmap_body(ctx, body):  # noqa: ANN001 - schemathesis hook signature
    """A JSON body as generated, or with a lone surrogate or a 65-bit integer in it."""
    if not isinstance(body, (dict, list)) or not _json_body(ctx):
        return st.just(body)
    huge, _ = _replace_first(body, int, lambda _i: HUGE_INT)
    if not SURROGATES:
        return st.sampled_from([body, huge])
    surrogate, _ = _replace_first(body, str, lambda s: s + LONE_SURROGATE)
    return st.sampled_from([body, surrogate, huge])


@schemathesis.hook
def flatmap_query(ctx, query):  # noqa: ANN001 - schemathesis hook signature
    """A query as generated, or with a 65-bit integer in it."""
    if not isinstance(query, dict):
        return st.just(query)
    huge, _ = _replace_first(query, int, lambda _i: HUGE_INT)
    return st.sampled_from([query, huge])


@schemathesis.hook
def flatmap_path_parameters(ctx, path_parameters):  # noqa: ANN001 - schemathesis hook signature
    """Path parameters as generated, or with a 65-bit integer (a lone surrogate cannot be put in a URL)."""
    if not isinstance(path_parameters, dict):
        return st.just(path_parameters)
    huge, _ = _replace_first(path_parameters, int, lambda _i: HUGE_INT)
    return st.sampled_from([path_parameters, huge])
