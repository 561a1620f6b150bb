"""What every route of the server shares: the store, the registered durable machines, the settings.

Routes are built by factories ``router(ctx: ServerContext) -> APIRouter`` (see ``app``), so a
route reaches the store and the machines through ``ctx`` alone and serves any
:class:`~agentsm_fn.durable.stores.protocol.store.RunStore`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs

from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.running.templates import memory_type
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.server.errors import ApiError

__all__ = ["AnyDurable", "ServerContext", "memory_type"]

AnyDurable = Durable[Any, Any, Any]
"""A durable machine of any states, events and memory (the server serves many at once)."""

MAX_BODY = 1 << 20
"""The default limit of a request body: 1 MiB."""

POLL_INTERVAL = 0.02
"""Seconds between two looks at the store for a streamed run (20 ms: events arrive within about that)."""


@attrs.frozen(kw_only=True)
class ServerContext:
    """The server's shared state: the store, the durable machines by name, and the settings.

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> from agentsm_fn.durable.stores.sqlite import SqliteStore
        >>> ctx = ServerContext.of(SqliteStore.open(":memory:").unwrap(),
        ...                        [Durable(name="app:AGENT", machine=REACT_MACHINE)])
        >>> sorted(ctx.durables), ctx.token
        (['app:AGENT'], None)
    """

    store: RunStore
    durables: Mapping[str, AnyDurable]
    token: str | None = None
    """The bearer token every request must carry (None: no token, loopback only)."""
    max_body: int = MAX_BODY
    """Bytes a request body may have; larger ones are refused (413) before they are read."""
    poll_interval: float = POLL_INTERVAL
    """Seconds between two looks at the store for a streamed run that is not over."""

    @classmethod
    def of(
        cls,
        store: RunStore,
        durables: Sequence[AnyDurable],
        token: str | None = None,
        max_body: int = MAX_BODY,
        poll_interval: float = POLL_INTERVAL,
    ) -> ServerContext:
        """The context for ``durables`` (their names must differ: a ValueError names the repeated ones)."""
        names = [durable.name for durable in durables]
        repeated = sorted({name for name in names if names.count(name) > 1})
        if repeated:
            raise ValueError(f"two durable machines are named {', '.join(repeated)}")
        by_name = MappingProxyType({durable.name: durable for durable in durables})
        return cls(
            store=store, durables=by_name, token=token or None, max_body=max_body, poll_interval=poll_interval
        )

    def durable(self, name: str) -> AnyDurable:
        """The durable machine registered as ``name``, or a 404 that lists the registered ones."""
        found = self.durables.get(name)
        if found is None:
            known = ", ".join(sorted(self.durables)) or "none"
            raise ApiError(404, "machine_not_found", f"no machine {name} is served here (served: {known})")
        return found
