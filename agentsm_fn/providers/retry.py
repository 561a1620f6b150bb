"""Retry policy, as the official SDKs do it, as a pure function of the attempt and the answer.

Retry on 408, 409, 429 and any status >= 500 (so 529), on connection errors and
timeouts, and whenever the server says ``x-should-retry: true`` (never when it
says ``false``). Wait ``retry-after-ms``, else ``retry-after`` (seconds or an HTTP
date) when positive and at most ``max_retry_after``; otherwise
``min(initial_delay * 2**n, max_delay)`` times a jitter in ``[1 - jitter, 1]``.
The jitter's random draw and the clock are passed in, so the policy is pure and
tests never wait.
"""

from __future__ import annotations

import email.utils
import math
from collections.abc import Mapping

import attrs

__all__ = ["RETRYABLE_STATUSES", "RetryPolicy"]

RETRYABLE_STATUSES = frozenset({408, 409, 429})
"""Statuses below 500 worth retrying (every status >= 500 is retried too)."""


def _seconds(value: str, now: float) -> float | None:
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        return when.timestamp() - now
    return seconds if math.isfinite(seconds) else None


@attrs.frozen(kw_only=True)
class RetryPolicy:
    """Bounded retries with exponential backoff, jitter and honoured ``retry-after``.

    Example:
        >>> policy = RetryPolicy(max_retries=2)
        >>> policy.delay(0, status=529, headers={}, now=0.0, draw=1.0)
        0.5
        >>> policy.delay(0, status=429, headers={"retry-after": "3"}, now=0.0, draw=0.0)
        3.0
        >>> policy.delay(2, status=500, headers={}, now=0.0, draw=0.0) is None  # attempts used up
        True
        >>> policy.delay(0, status=400, headers={}, now=0.0, draw=0.0) is None
        True
    """

    max_retries: int = 2
    initial_delay: float = 0.5
    max_delay: float = 8.0
    jitter: float = 0.25
    max_retry_after: float = 60.0

    def should_retry(self, status: int | None, headers: Mapping[str, str]) -> bool:
        """Whether an answer is worth retrying (``status`` None: connection error or timeout).

        Example:
            >>> RetryPolicy().should_retry(400, {"x-should-retry": "true"})
            True
        """
        hint = headers.get("x-should-retry", "").lower()
        if hint in ("true", "false"):
            return hint == "true"
        return status is None or status in RETRYABLE_STATUSES or status >= 500

    def delay(
        self, retries_done: int, *, status: int | None, headers: Mapping[str, str], now: float, draw: float
    ) -> float | None:
        """Seconds to wait before the next attempt, or None to give up.

        ``retries_done`` counts retries already made; ``draw`` is a uniform random
        number in [0, 1] for the jitter; ``now`` is the clock (for HTTP dates).
        """
        if retries_done >= self.max_retries or not self.should_retry(status, headers):
            return None
        server = self._server_delay(headers, now)
        if server is not None:
            return server
        backoff = min(self.initial_delay * 2.0**retries_done, self.max_delay)
        return backoff * (1.0 - self.jitter * (1.0 - min(max(draw, 0.0), 1.0)))

    def _server_delay(self, headers: Mapping[str, str], now: float) -> float | None:
        seconds: float | None = None
        millis = headers.get("retry-after-ms")
        if millis is not None:
            try:
                seconds = float(millis) / 1000.0
            except ValueError:
                seconds = None
        if seconds is None and "retry-after" in headers:
            seconds = _seconds(headers["retry-after"], now)
        if seconds is not None and math.isfinite(seconds) and 0 < seconds <= self.max_retry_after:
            return seconds
        return None
