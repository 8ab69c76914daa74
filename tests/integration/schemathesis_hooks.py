"""schemathesis hooks for ``test_schemathesis.py`` (loaded by ``st run`` through ``SCHEMATHESIS_HOOKS``).

The run authenticates with a personal API token; ``DELETE /api/users/me/tokens/{token_id}`` with
that token's own id (``SUBFLOW_FUZZ_TOKEN_ID``) would revoke it and turn the rest of the run
into 401s, so that one value is never generated. Every other id is fair game.
"""

from __future__ import annotations

import os

import schemathesis

PROTECTED_TOKEN_ID = os.environ.get("SUBFLOW_FUZZ_TOKEN_ID", "")


@schemathesis.hook
def filter_path_parameters(ctx, path_parameters):  # noqa: ANN001 - schemathesis hook signature
    """Never revoke the token the run authenticates with."""
    return not (path_parameters and PROTECTED_TOKEN_ID and path_parameters.get("token_id") == PROTECTED_TOKEN_ID)
