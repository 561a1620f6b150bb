"""Private: run a function in a daemon thread, in a copy of the caller's ``contextvars`` context."""

from __future__ import annotations

import concurrent.futures
import contextvars
import threading
from collections.abc import Callable
from typing import TypeVar

__all__ = ["in_daemon_thread"]

T = TypeVar("T")


def in_daemon_thread(work: Callable[[], T], name: str = "agentsm-tool") -> concurrent.futures.Future[T]:
    """Run ``work`` in a daemon thread (never joined at exit), in a copy of the caller's context.

    Example:
        >>> in_daemon_thread(lambda: 6 * 7).result()
        42
    """
    future: concurrent.futures.Future[T] = concurrent.futures.Future()
    context = contextvars.copy_context()  # ContextVars set by the caller stay visible to the work

    def target() -> None:
        if not future.set_running_or_notify_cancel():  # pragma: no cover - cancelled before start
            return
        try:
            future.set_result(context.run(work))
        except BaseException as exc:  # handed to the waiter, which reports it
            future.set_exception(exc)

    threading.Thread(target=target, name=name, daemon=True).start()
    return future
