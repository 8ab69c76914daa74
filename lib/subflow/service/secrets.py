"""One rule for placeholder secrets, shared by the backend, the worker and the emulator agent.

A secret (``AGENT_TOKEN``) is a *placeholder* when it is empty, one of the well-known
development values (:data:`PLACEHOLDERS`, e.g. ``local-dev-token``), or shorter than
:data:`MIN_SECRET_LENGTH` characters. The emulator agent, which runs the root ``linux``
engine, refuses to start with a placeholder token in every mode; the backend and worker
refuse one when ``SUBFLOW_ENV=production``. ``scripts/serve.sh`` generates a random token
per data directory (:func:`new_token`) and hands it to all three.
"""

from __future__ import annotations

import secrets as _stdlib_secrets

#: development values that are never accepted as a secret
PLACEHOLDERS = frozenset({"", "local-dev-token", "changethis", "changeme", "secret", "token", "password"})
#: shortest accepted secret, characters (``new_token`` gives 43)
MIN_SECRET_LENGTH = 16


def is_placeholder(value: str | None) -> bool:
    """True if ``value`` may not serve as a secret (see the module rule)."""
    v = (value or "").strip()
    return v.lower() in PLACEHOLDERS or len(v) < MIN_SECRET_LENGTH


def check_secret(name: str, value: str | None) -> str:
    """Return ``value`` if it is a usable secret.

    Raises
    ------
    ValueError
        Naming the variable ``name`` and why the value is refused (pydantic-settings
        validators turn it into a start-up error).
    """
    if is_placeholder(value):
        raise ValueError(
            f"{name} is unset or a placeholder (empty, a development value such as 'local-dev-token', "
            f"or shorter than {MIN_SECRET_LENGTH} characters); set it to a random secret, "
            f"e.g. python -c 'import secrets; print(secrets.token_urlsafe(32))' (scripts/serve.sh does this)"
        )
    return value  # type: ignore[return-value]


def new_token() -> str:
    """A random URL-safe secret of 32 bytes (43 characters), from :mod:`secrets`."""
    return _stdlib_secrets.token_urlsafe(32)


if __name__ == "__main__":  # ``python -m subflow.service.secrets``: print a new token (scripts/serve.sh)
    print(new_token())
