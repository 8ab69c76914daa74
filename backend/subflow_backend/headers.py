"""Security headers on every response (a pure ASGI middleware, so streaming responses pass through).

* ``Content-Security-Policy``: scripts only from the service's own origin (no inline
  script: the built frontend's ``index.html`` loads one module file), no plugins, no
  framing (``frame-ancestors 'none'``), forms and fetches to the same origin. Styles allow
  ``'unsafe-inline'`` (charts set ``style`` attributes). ``/docs`` and ``/redoc`` get the
  scripts and styles FastAPI's pages load from jsDelivr and their inline start-up script.
* ``X-Content-Type-Options: nosniff``, ``X-Frame-Options: DENY`` (older browsers),
  ``Referrer-Policy: same-origin``, ``Cross-Origin-Opener-Policy: same-origin``.

Sources: CSP Level 3 (W3C), RFC 7034 (X-Frame-Options), OWASP Secure Headers Project.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

APP_CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
    "font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; "
    "frame-ancestors 'none'"
)
DOCS_CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; "
    "style-src 'self' 'unsafe-inline' https://cdn.jsdelivr.net; img-src 'self' data: https://fastapi.tiangolo.com; "
    "worker-src 'self' blob:; connect-src 'self'; object-src 'none'; base-uri 'self'; frame-ancestors 'none'"
)
_DOCS_PATHS = ("/docs", "/redoc")
_COMMON = [
    (b"x-content-type-options", b"nosniff"),
    (b"x-frame-options", b"DENY"),
    (b"referrer-policy", b"same-origin"),
    (b"cross-origin-opener-policy", b"same-origin"),
]


class SecurityHeadersMiddleware:
    """Add the headers above to every HTTP response that does not set them itself."""

    def __init__(self, app: ASGIApp):
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        csp = DOCS_CSP if scope.get("path", "").startswith(_DOCS_PATHS) else APP_CSP

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                present = {k.lower() for k, _ in headers}
                for key, value in [(b"content-security-policy", csp.encode()), *_COMMON]:
                    if key not in present:
                        headers.append((key, value))
                message["headers"] = headers
            await send(message)

        await self.app(scope, receive, send_with_headers)
