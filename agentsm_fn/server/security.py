"""Safe by default: loopback unless a token is set, and every request checked before a route.

A bearer token on every route; JSON-only POSTs; a limit on request bodies; a Host header
that names this machine.

* :func:`bind_problem` refuses to serve on an address other than loopback without a token.
* :class:`Guard` (ASGI middleware) checks every HTTP request before any route sees it: the
  ``Authorization: Bearer`` token (compared in constant time), the ``Host`` header when no
  token is set (a page whose domain was re-pointed at 127.0.0.1, DNS rebinding, is refused),
  ``Content-Type: application/json`` on a POST (an HTML form posted from another site cannot
  send it without the browser asking first, so it cannot act), and the body size: a declared
  ``Content-Length`` over the limit is refused before reading, and a body that grows past it
  while it is read (the Guard reads it whole, at most the limit, before the app) is refused
  with 413. Each refusal is a JSON :func:`~agentsm_fn.server.errors.error_body`.

The only requests a token-protected server answers without the token are a ``GET`` (or
``HEAD``) of a path in ``public`` (the inspector's page and its files: no run data is in them),
so a browser can load the page, which then asks for the token and sends it on each API call.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Collection

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from agentsm_fn.server.errors import error_body

__all__ = ["TOKEN_ENV", "Guard", "bind_problem", "is_loopback"]

TOKEN_ENV = "AGENTSM_RUNS_TOKEN"
"""The environment variable ``agentsm-runs serve`` reads its token from (a credential name: redacted)."""

_LOCAL_NAMES = ("localhost", "127.0.0.1", "::1")


def is_loopback(host: str) -> bool:
    """True for an address only this machine reaches: 127.0.0.0/8, ::1, localhost.

    Example:
        >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
        (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def bind_problem(host: str, token: str | None) -> str | None:
    """Why serving on ``host`` is refused (None: it is allowed).

    Example:
        >>> bind_problem("0.0.0.0", None)[:40]
        'refusing to serve on 0.0.0.0 without a t'
        >>> bind_problem("0.0.0.0", "s3cret-token") is None
        True
    """
    if is_loopback(host) or token:
        return None
    return (
        f"refusing to serve on {host} without a token: other machines could reach every run "
        f"(give --token or set {TOKEN_ENV}, or serve on 127.0.0.1)"
    )


class Guard:
    """The checks every request passes before the app sees it (see the module doc)."""

    def __init__(self, app: ASGIApp, token: str | None, max_body: int, public: Collection[str] = ()) -> None:
        self.app = app
        self.token = token.encode() if token else None
        self.max_body = max_body
        self.public = frozenset(public)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {key.decode("latin-1").lower(): value for key, value in scope["headers"]}
        refused = self._refusal(scope, headers)
        if refused is not None:
            await _send_error(send, *refused)
            return
        if scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        body = await self._read(receive)
        if body is None:
            await _send_error(send, 413, "body_too_large", f"the body is over {self.max_body} bytes")
            return
        await self.app(scope, _replaying(body, receive), send)

    def _refusal(self, scope: Scope, headers: dict[str, bytes]) -> tuple[int, str, str] | None:
        if self.token is not None and not self._public(scope):
            given = headers.get("authorization", b"")
            scheme, _, value = given.partition(b" ")
            if scheme.lower() != b"bearer" or not hmac.compare_digest(value.strip(), self.token):
                return 401, "unauthorized", "this server needs its token: Authorization: Bearer TOKEN"
        elif not _local_host(headers.get("host", b"").decode("latin-1")):
            return 403, "forbidden_host", "without a token this server answers only to localhost names"
        if scope["method"] == "POST":
            kind = headers.get("content-type", b"").split(b";")[0].strip().lower()
            if kind != b"application/json":
                return 415, "json_only", "a POST body must be JSON (Content-Type: application/json)"
        declared = headers.get("content-length")
        if declared is not None:
            try:
                size = int(declared)
            except ValueError:
                return 400, "bad_content_length", "Content-Length is not a number"
            if size > self.max_body:
                return 413, "body_too_large", f"the body is over {self.max_body} bytes"
        return None

    def _public(self, scope: Scope) -> bool:
        """A GET of a path that holds no data (relative to where the app is mounted)."""
        path, root = str(scope["path"]), str(scope.get("root_path", ""))
        if root and path.startswith(root):
            path = path[len(root) :]
        return scope["method"] in ("GET", "HEAD") and path in self.public

    async def _read(self, receive: Receive) -> bytes | None:
        """The whole body (None once it grows past the limit: a body without a Content-Length too)."""
        parts: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                break
            part = message.get("body", b"")
            size += len(part)
            if size > self.max_body:
                return None
            parts.append(part)
            if not message.get("more_body", False):
                break
        return b"".join(parts)


def _replaying(body: bytes, receive: Receive) -> Receive:
    """A ``receive`` that gives the body read already, then what the client sends next (a disconnect)."""
    given = False

    async def replay() -> Message:
        nonlocal given
        if not given:
            given = True
            return {"type": "http.request", "body": body, "more_body": False}
        return await receive()

    return replay


def _local_host(host: str) -> bool:
    """True if a Host header names this machine (``127.0.0.1:8000``, ``localhost``, ``[::1]:80``)."""
    name = host[1:].split("]", 1)[0] if host.startswith("[") else host.split(":", 1)[0]
    return name in _LOCAL_NAMES or is_loopback(name)


async def _send_error(send: Send, status: int, kind: str, detail: str) -> None:
    body = json.dumps(error_body(kind, detail)).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *([(b"www-authenticate", b'Bearer realm="agentsm-runs"')] if status == 401 else []),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
