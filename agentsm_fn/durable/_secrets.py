"""Secrets out of what a durable run stores: a performer's exception text is scrubbed first.

A performer that raises becomes an ``EffectFailure`` whose detail is the exception's text,
and that text is journaled (and shown by ``agentsm-runs export``). Exceptions of HTTP
clients often quote the credential they sent, so before the failure is delivered and
stored, :func:`scrubbed` replaces the value of every environment variable whose name says
it holds a credential (``*KEY*``, ``*TOKEN*``, ``*SECRET*``, ``*PASSWORD*``, ...) and
anything shaped like a bearer token or a well-known API key with ``[redacted]``. The
machine sees the same scrubbed failure that is stored, so a resumed run replays exactly.
"""

from __future__ import annotations

import os
import re

__all__ = ["scrubbed"]

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH", re.IGNORECASE)
_SHAPES = re.compile(
    r"(?<=Bearer )[A-Za-z0-9._~+/=-]{8,}"  # an Authorization header's token
    r"|\b(?:sk|pk|rk)[-_][A-Za-z0-9_-]{16,}"  # OpenAI, Anthropic, Stripe keys
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}"  # GitHub tokens
    r"|\bxox[abprs]-[A-Za-z0-9-]{10,}"  # Slack tokens
    r"|\bAKIA[0-9A-Z]{16}\b"  # AWS access key ids
    r"|\bAIza[0-9A-Za-z_-]{30,}"  # Google API keys
)
_MIN_SECRET = 8
"""Shorter environment values (``AUTH_MODE=none``) are not taken for secrets."""

REDACTED = "[redacted]"


def scrubbed(text: str) -> str:
    """``text`` with credentials from the environment and token-shaped strings replaced.

    Example:
        >>> scrubbed("401: Authorization: Bearer abcdefgh12345678 refused")
        '401: Authorization: Bearer [redacted] refused'
        >>> scrubbed("no secret here")
        'no secret here'
    """
    for name, value in os.environ.items():
        if len(value) >= _MIN_SECRET and _SECRET_NAME.search(name) and value in text:
            text = text.replace(value, REDACTED)
    return _SHAPES.sub(REDACTED, text)
