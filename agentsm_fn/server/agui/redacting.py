"""Streamed text with credentials redacted, even when a credential is split across deltas.

A provider decodes text in fragments of any length, so a key can arrive as ``"sk-ab"`` then
``"cdef..."``: redacting each fragment alone would let it through. :class:`RedactedText` holds
back the word a fragment ends in (a credential has no whitespace inside it) and redacts what it
lets go together with the end of what went before (so ``Bearer`` in one fragment still marks
the token in the next), with :func:`~agentsm_fn.shell.credentials.redact_credentials`, the
project's one mechanism. Text goes out word by word; the last word when the message ends.
"""

from __future__ import annotations

import re

from agentsm_fn.shell.credentials import redact_credentials

__all__ = ["RedactedText"]

_SPACE = re.compile(r"\s")
_CONTEXT = 32
"""How much of what went out is read again as the context of what goes out next."""


class RedactedText:
    """Fragments in, redacted text out, never splitting a word across a redaction.

    Example:
        >>> text = RedactedText()
        >>> [text.add(part) for part in ("my key is sk-abcdefgh", "ijklmnopqrstuv, keep it")]
        ['my key is ', '[redacted], keep ']
        >>> text.end()
        'it'
    """

    def __init__(self) -> None:
        self.held = ""
        self.sent = ""

    def add(self, fragment: str) -> str:
        """What of the text so far can go out now (up to its last whitespace), redacted."""
        self.held += fragment
        cut = max((m.end() for m in _SPACE.finditer(self.held)), default=0)
        ready, self.held = self.held[:cut], self.held[cut:]
        return self._out(ready)

    def end(self) -> str:
        """The rest, redacted: the text is complete."""
        ready, self.held = self.held, ""
        return self._out(ready)

    def _out(self, ready: str) -> str:
        if not ready:
            return ""
        context = self.sent[-_CONTEXT:]
        cleaned = redact_credentials(context + ready)
        out = cleaned[len(context) :] if cleaned.startswith(context) else redact_credentials(ready)
        self.sent = (self.sent + ready)[-_CONTEXT:]
        return out
