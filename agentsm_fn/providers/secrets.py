"""API keys as values that never show themselves.

A :class:`Secret` keeps its text out of ``repr``, ``str``, equality dumps and
pickling by attrs; only the transport calls :meth:`Secret.reveal`, to build the
auth header. :func:`redact` scrubs a key out of any text we produce from server
data (some servers echo part of the key in 401 messages).
"""

from __future__ import annotations

from collections.abc import Mapping

import attrs

__all__ = ["Secret", "redact", "secret_from"]


@attrs.frozen(repr=False)
class Secret:
    """An API key. Its ``repr`` and ``str`` are ``Secret('***')``.

    Example:
        >>> key = Secret("sk-live-123")
        >>> repr(key), str(key), key.reveal()
        ("Secret('***')", "Secret('***')", 'sk-live-123')
    """

    _value: str = attrs.field(alias="value")

    def reveal(self) -> str:
        """The key itself: for the auth header, nothing else."""
        return self._value

    def __repr__(self) -> str:
        return "Secret('***')" if self._value else "Secret('')"

    __str__ = __repr__

    def __bool__(self) -> bool:
        return bool(self._value)


def secret_from(explicit: str | Secret | None, env: Mapping[str, str], name: str) -> Secret:
    """The key given explicitly, else the environment variable ``name``, else an empty secret.

    Example:
        >>> bool(secret_from(None, {"OPENAI_API_KEY": "sk-1"}, "OPENAI_API_KEY"))
        True
    """
    if isinstance(explicit, Secret):
        return explicit
    if explicit is not None:
        return Secret(explicit)
    return Secret(env.get(name, ""))


def redact(text: str, secret: Secret) -> str:
    """``text`` with every occurrence of the key (and of its last 8+ characters) masked.

    Example:
        >>> redact("Incorrect API key provided: sk-abcdef123456", Secret("sk-abcdef123456"))
        'Incorrect API key provided: ***'
    """
    value = secret.reveal()
    if len(value) < 4:
        return text
    text = text.replace(value, "***")
    tail = value[-8:]
    return text.replace(tail, "***") if len(value) >= 12 else text
