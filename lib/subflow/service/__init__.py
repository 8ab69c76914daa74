"""What the service processes share: the emulator agent's HTTP documents, request limits, structured logs and correlation ids, and the placeholder-secret rule.

Public names of the package, by module; ``from subflow.service import X`` and ``from subflow.service.<module> import X``
name the same object.
"""

from subflow.service.agent_api import (
    RunStatus,
    FieldDeclaration,
    EngineCapabilities,
    Capabilities,
    AgentHealth,
    RunPublic,
)
from subflow.service.limits import (
    Limits,
    check_scenario,
    check_sweep,
)
from subflow.service.observability import (
    REQUEST_ID_HEADER,
    COMPARISON_ID_HEADER,
    configure_logging,
    request_id_from,
    bind_from_headers,
    outgoing_headers,
    current_ids,
    Observer,
    RequestContext,
)
from subflow.service.secrets import (
    PLACEHOLDERS,
    MIN_SECRET_LENGTH,
    is_placeholder,
    check_secret,
    new_token,
)

__all__ = [
    "RunStatus",
    "FieldDeclaration",
    "EngineCapabilities",
    "Capabilities",
    "AgentHealth",
    "RunPublic",
    "Limits",
    "check_scenario",
    "check_sweep",
    "REQUEST_ID_HEADER",
    "COMPARISON_ID_HEADER",
    "configure_logging",
    "request_id_from",
    "bind_from_headers",
    "outgoing_headers",
    "current_ids",
    "Observer",
    "RequestContext",
    "PLACEHOLDERS",
    "MIN_SECRET_LENGTH",
    "is_placeholder",
    "check_secret",
    "new_token",
]
