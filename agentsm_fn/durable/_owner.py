"""Who owns a run: ``host:pid``, and whether that process is still alive."""

from __future__ import annotations

import os
import socket

__all__ = ["owner_alive", "this_owner"]


def this_owner() -> str:
    """``host:pid`` of this process.

    Example:
        >>> this_owner().endswith(f":{os.getpid()}")
        True
    """
    return f"{socket.gethostname()}:{os.getpid()}"


def owner_alive(owner: str) -> bool:
    """False only when ``owner`` is a process on this host that no longer exists.

    A process on another host is taken to be alive (its lease decides).

    Example:
        >>> owner_alive(this_owner())
        True
    """
    host, _, pid_text = owner.rpartition(":")
    if host != socket.gethostname() or not pid_text.isdigit():
        return True
    try:
        os.kill(int(pid_text), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, owned by another user
        return True
    return True
