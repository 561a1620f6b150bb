"""Browser-facing protection on every response: no framing, no sniffing, no referrer, no cross-site requests.

:class:`BrowserShield` (ASGI middleware, outside the :class:`~agentsm_fn.server.security.Guard`)
refuses a request a browser marks ``Sec-Fetch-Site: cross-site`` (a page of another site
reaching this server: a link, an image, a script tag, a fetch) with a 403 JSON error before any
route runs; clients that are not browsers do not send the header and are not affected. It adds
:data:`SECURITY_HEADERS` to every response: ``X-Frame-Options: DENY`` and the CSP's
``frame-ancestors 'none'`` (no other page can frame the inspector and trick a click on
Approve), a CSP that lets the inspector's page run only its own scripts, styles and the
Graphviz WebAssembly (``'wasm-unsafe-eval'``), ``X-Content-Type-Options: nosniff`` and
``Referrer-Policy: no-referrer``.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agentsm_fn.server.errors import error_body

__all__ = ["CONTENT_SECURITY_POLICY", "SECURITY_HEADERS", "BrowserShield"]

CONTENT_SECURITY_POLICY = "; ".join(
    (
        "default-src 'none'",
        "script-src 'self' 'wasm-unsafe-eval'",
        "style-src 'self'",
        "img-src 'self' data:",
        "connect-src 'self'",
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    )
)
"""The inspector's page loads only its own files; no page may frame any response."""

SECURITY_HEADERS: tuple[tuple[str, str], ...] = (
    ("X-Frame-Options", "DENY"),
    ("Content-Security-Policy", CONTENT_SECURITY_POLICY),
    ("X-Content-Type-Options", "nosniff"),
    ("Referrer-Policy", "no-referrer"),
)
"""The headers every response of the app carries."""


class BrowserShield:
    """Refuses cross-site browser requests and adds :data:`SECURITY_HEADERS` (see the module doc)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def shielded(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS:
                    headers[name] = value
            await send(message)

        site = dict(scope["headers"]).get(b"sec-fetch-site", b"").strip().lower()
        if site == b"cross-site":
            refusal = error_body("cross_site", "a page of another site cannot call this server")
            await JSONResponse(refusal, status_code=403)(scope, receive, shielded)
            return
        await self.app(scope, receive, shielded)
