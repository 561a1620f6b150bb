"""The one check of a run id a caller chooses for a new run, made for every door that creates one.

``Durable.start``, ``astart``, ``enqueue`` and ``start_at`` (a fork) check it before anything
is stored, so the Python API, the command line, the HTTP server and AG-UI refuse the same ids
with the same typed error (:class:`~agentsm_fn.durable.errors.RunIdRefused`).
"""

from __future__ import annotations

from agentsm_fn.durable.errors import RunIdRefused
from agentsm_fn.shell.credentials import redact_credentials

__all__ = ["child_run_id", "refused_run_id"]

CREDENTIAL_SHAPED = "looks like a credential: choose another id"
"""Why a credential-shaped run id is refused."""


def refused_run_id(run_id: str) -> RunIdRefused | None:
    """Why ``run_id`` cannot name a new run, or None if it can.

    A run id is shown everywhere (lists, links, streams, the inspector) and is never
    redacted, since a redacted id would make its run unreachable; so an id that
    redaction would change is refused up front.

    Example:
        >>> refused_run_id("order-17") is None
        True
        >>> refused_run_id("sk-" + "abcdefghij" * 3).describe()
        'the run id looks like a credential: choose another id'
    """
    return RunIdRefused(why=CREDENTIAL_SHAPED) if redact_credentials(run_id) != run_id else None


def child_run_id(parent: str, seq: int, index: int | None = None) -> str:
    """The id of the child run a parent's effect ``seq`` starts (``index``: its place in a fan-out).

    Derived, never drawn: a parent that crashes around the request and asks again finds the
    same child, so a child is started once.

    Example:
        >>> child_run_id("order-17", 4), child_run_id("order-17", 4, 0)
        ('order-17.c4', 'order-17.c4.0')
    """
    return f"{parent}.c{seq}" if index is None else f"{parent}.c{seq}.{index}"
