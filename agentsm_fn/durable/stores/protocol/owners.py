"""Who owns a run: ``host:pid``, whether that process is still alive, and whether a run was orphaned."""

from __future__ import annotations

import os
import socket

__all__ = ["owner_alive", "owner_holds", "run_orphaned", "this_owner"]


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


def owner_holds(owner: str, lease_until: float, now: float) -> bool:
    """Whether ``owner`` still holds a run: its lease runs on and its process is not known to be gone.

    Example:
        >>> owner_holds(this_owner(), lease_until=2.0, now=1.0), owner_holds("", lease_until=2.0, now=1.0)
        (True, False)
    """
    return bool(owner) and lease_until > now and owner_alive(owner)


def run_orphaned(running: bool, owner: str, lease_until: float, now: float) -> bool:
    """Whether a RUNNING run has no live owner: its lease ran out, or its process on this host is gone.

    Such a run was stopped mid-way (killed, crashed) and waits for ``recover`` or ``resume``.

    Example:
        >>> run_orphaned(True, this_owner(), lease_until=2.0, now=1.0)
        False
        >>> run_orphaned(True, this_owner(), lease_until=1.0, now=2.0)
        True
    """
    return running and not owner_holds(owner, lease_until, now)
