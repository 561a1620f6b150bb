"""Credentials out of the exception text a run keeps: the one place it is redacted.

A performer, a tool or an activity that raises becomes a value the run keeps (an
``EffectFailure``, a failed tool result), and its text lands in the memory, the trace,
the journal, spans and stored runs. Exceptions of HTTP clients often quote the
credential they sent, so wherever the shell or an integration turns an exception (or a
remote error message) into such a value, :func:`redact_credentials` replaces first the
value of every environment variable whose name says it holds a credential (a name part
ending in ``KEY``, ``TOKEN`` or ``SECRET``, a last part ending in ``AUTH``, or ``PASSW``,
``PASSPHRASE``, ``CREDENTIAL`` anywhere; values of 8 characters or more) and then anything
shaped like a bearer or basic token or a well-known API key with ``[redacted]``. It reads
the environment, so it runs only when something raised, never on the hot path.

:func:`raised_failure` is the outcome of a performer that raised, as every runner
delivers it (in memory, durable, and the durable runner's journal): one function, so
the same raise gives the identical ``EffectFailure`` everywhere.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable

from agentsm_fn.core.effect_failures import EffectFailure, FailureKind
from agentsm_fn.core.effects import Effect, describe_effect

__all__ = ["credential_redactor", "raised_failure", "redact_credentials", "redact_values"]

_SECRET_NAME = re.compile(
    r"(?:^|[^A-Z0-9])[A-Z0-9]*(?:KEY|TOKEN|SECRET)(?:$|[^A-Z0-9])"  # a part ending so: API_KEY, HF_TOKEN
    r"|AUTH$"  # the name's last part: BASIC_AUTH, OAUTH (not AUTH_MODE, SSH_AUTH_SOCK)
    r"|PASSW|PASSPHRASE|CREDENTIAL",  # anywhere: DB_PASSWORD, GOOGLE_APPLICATION_CREDENTIALS
    re.IGNORECASE,
)
"""Credential-named variables. A name part must end in KEY, TOKEN or SECRET, so ``KEYBOARD_LAYOUT``
and ``TOKENIZERS_PARALLELISM`` are not; AUTH only ends a name, so ``GIT_AUTHOR_NAME``, ``XAUTHORITY``
and ``AUTH_MODE`` are not."""
_TOKEN = r"(?:(?=[A-Za-z0-9._~+/=-]*\d)[A-Za-z0-9._~+/=-]{8,}|[A-Za-z0-9._~+/=-]{20,})"
"""An opaque token: 8+ characters with a digit, or 20+ (so "Bearer authentication" is prose, not a token)."""
_SHAPES = re.compile(
    rf"(?<=[Bb]earer ){_TOKEN}|(?<=[Bb]asic ){_TOKEN}"  # an Authorization header's credential
    r"|\bsk-[A-Za-z0-9_-]{16,}"  # OpenAI and Anthropic keys (sk-..., sk-proj-..., sk-ant-...)
    r"|\b(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"  # Stripe keys (not a pk_orders_... constraint)
    r"|\bgh[pousr]_[A-Za-z0-9]{20,}"  # GitHub tokens
    r"|\bxox[abprs]-[A-Za-z0-9-]{10,}"  # Slack tokens
    r"|\bAKIA[0-9A-Z]{16}\b"  # AWS access key ids
    r"|\bAIza[0-9A-Za-z_-]{30,}"  # Google API keys
)
_SHAPED = (
    "earer ",
    "asic ",
    "sk-",
    "_live_",
    "_test_",
    "ghp_",
    "gho_",
    "ghu_",
    "ghs_",
    "ghr_",
    "xox",
    "AKIA",
    "AIza",
)
"""A piece of each of :data:`_SHAPES`' alternatives: a text with none of them has no token shape (a
substring test is ~20 times cheaper than the pattern's search, and most texts have none)."""
_MIN_SECRET = 8
"""Shorter environment values (``AUTH_MODE=none``) are not taken for secrets."""

_REDACTED = "[redacted]"


def _environment_secrets() -> list[str]:
    """The values of credential-named environment variables, longest first."""
    found = {v for n, v in os.environ.items() if len(v) >= _MIN_SECRET and _SECRET_NAME.search(n)}
    return sorted(found, key=len, reverse=True)


def redact_credentials(text: str) -> str:
    """``text`` with credentials from the environment and token-shaped strings replaced by ``[redacted]``.

    The result never contains the value of a credential-named environment variable, even one
    a replacement would form again next to a marker (that occurrence is dropped instead).

    Example:
        >>> redact_credentials("401: Authorization: Bearer abcdefgh12345678 refused")
        '401: Authorization: Bearer [redacted] refused'
        >>> redact_credentials("no secret here")
        'no secret here'
    """
    return credential_redactor()(text)


def credential_redactor() -> Callable[[str], str]:
    """:func:`redact_credentials` with the environment read once, for redacting many strings in a row.

    The inspector redacts every string of a run's memory at every step; reading the
    environment for each of them would cost more than the replay itself.

    Example:
        >>> redact = credential_redactor()
        >>> [redact(t) for t in ("Bearer abcdefgh12345678", "no secret")]
        ['Bearer [redacted]', 'no secret']
    """
    secrets = _environment_secrets()

    def redact(text: str) -> str:
        text = redact_values(text, secrets, _MIN_SECRET)
        if any(piece in text for piece in _SHAPED):
            text = _SHAPES.sub(_REDACTED, text)
        left = [secret for secret in secrets if secret in text]
        while left:  # a marker and its neighbours spell a secret again: drop it (the text shrinks each time)
            for secret in left:
                text = text.replace(secret, "")
            left = [secret for secret in secrets if secret in text]
        return text

    return redact


def redact_values(text: str, values: Iterable[str], shortest: int) -> str:
    """``text`` with each of ``values`` at least ``shortest`` long replaced by ``[redacted]``, longest first.

    The one replacement of known secret values: the environment's here, an MCP target's
    environment, headers and URL parts in :mod:`agentsm_fn.mcp.targets`.

    Example:
        >>> redact_values("key=abc123, again abc123, id=42", ["abc123", "42"], 4)
        'key=[redacted], again [redacted], id=42'
    """
    for value in sorted(set(values), key=len, reverse=True):
        if len(value) >= shortest:
            text = text.replace(value, _REDACTED)
    return text


def raised_failure(effect: Effect[object], exc: BaseException) -> EffectFailure:
    """The outcome of a performer that raised ``exc`` performing ``effect``: RAISED, credentials redacted.

    Example:
        >>> from agentsm_fn.llm import LlmCall, LlmRequest
        >>> call = LlmCall(LlmRequest(model="m", messages=()))
        >>> failure = raised_failure(call, OSError("Bearer abcdefgh12345678 refused"))
        >>> failure.kind.name, failure.detail
        ('RAISED', 'OSError: Bearer [redacted] refused')
    """
    detail = redact_credentials(f"{type(exc).__qualname__}: {exc}")  # whole, before EffectFailure clips it
    return EffectFailure(kind=FailureKind.RAISED, effect=describe_effect(effect), detail=detail)
