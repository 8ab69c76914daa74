"""Password policy of new passwords (account creation, password change, an admin's reset).

NIST SP 800-63B §3.1.1.2 (memorized secrets): at least ``MIN_LENGTH`` (8) characters, at most 256,
and not one of the commonly used or breached passwords of ``data/common-passwords.txt`` (10 000
entries, see ``data/README.md``), nor the username itself. Composition rules (digits, symbols) are
not imposed, as §3.1.1.2 advises. Sign-in does not apply the policy (older passwords keep working).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

MIN_LENGTH = 8
MAX_LENGTH = 256
_LIST = Path(__file__).with_name("data") / "common-passwords.txt"


@lru_cache(maxsize=1)
def common_passwords() -> frozenset[str]:
    """The bundled list, lower case (read once)."""
    return frozenset(line.strip().lower() for line in _LIST.read_text(encoding="utf-8").splitlines() if line.strip())


def problem(password: str, username: str | None = None) -> str | None:
    """Why ``password`` may not be used (a sentence naming the rule), or None if it may."""
    if len(password) < MIN_LENGTH:
        return f"the password has {len(password)} characters; at least {MIN_LENGTH} are needed"
    if len(password) > MAX_LENGTH:
        return f"the password has {len(password)} characters; at most {MAX_LENGTH} are allowed"
    if password.lower() in common_passwords():
        return "the password is one of the 10 000 most common passwords; choose another"
    if username and password.lower() == username.lower():
        return "the password may not be the username"
    return None
