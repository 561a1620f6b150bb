"""A stored run's descendants' events, look after look: each child run (and theirs) followed in the store.

A parent's stream carries its children's events (:class:`~agentsm_fn.stream.children.ChildEvent`).
:class:`ChildrenFollow` finds a run's children in the store's children table, and theirs, and
follows each started one with its own :class:`~agentsm_fn.durable.operations.following.StoredFollow`
(a replay from its last settled journal row): each look gives the history events each descendant
added since the last look, and its standing events when they changed, in the tree's order (a
child's events before its own children's). A descendant that ended, and whose children all
ended and were seen, is not looked at again. A child whose program this process does not know
(``durable_of`` gives None) is left out, with its children.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from returns.result import Failure, Result, Success

from agentsm_fn.durable.errors import DurableError
from agentsm_fn.durable.operations.cancel import stored_children
from agentsm_fn.durable.operations.following import StoredFollow
from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.stores.protocol.store import RunStore
from agentsm_fn.stream.children import ChildEvent
from agentsm_fn.stream.events import RunEvent

__all__ = ["ChildrenFollow"]

DurableOf = Callable[[str], Durable[Any, Any, Any] | None]


class _Followed:
    """One descendant: its follow, its parent, the root's effect it descends from, what was sent of it."""

    def __init__(self, follow: StoredFollow[Any, Any, Any], parent: str, seq: int) -> None:
        self.follow, self.parent, self.seq = follow, parent, seq
        self.sent = 0
        self.standing: tuple[RunEvent, ...] = ()
        self.over = False
        self.done = False


class ChildrenFollow:
    """The events of ``run_id``'s descendants, look after look (see the module)."""

    def __init__(self, store: RunStore, run_id: str, durable_of: DurableOf) -> None:
        self.store, self.run_id, self.durable_of = store, run_id, durable_of
        self._followed: dict[str, _Followed] = {}

    def _events(self, child_id: str, followed: _Followed) -> Result[list[RunEvent], DurableError]:
        looked = followed.follow.look()
        if isinstance(looked, Failure):
            return looked
        seen = looked.unwrap()
        fresh = list(seen.history[followed.sent - seen.first :])
        followed.sent = seen.first + len(seen.history)
        if seen.standing != followed.standing:
            fresh.extend(seen.standing)
            followed.standing = seen.standing
        followed.over = not seen.record.status.unfinished
        return Success(fresh)

    def _walk(
        self, parent: str, seq: int | None, out: list[tuple[int, str, str, RunEvent]]
    ) -> DurableError | None:
        found = stored_children(self.store, parent)
        if isinstance(found, Failure):
            unread: DurableError = found.failure()
            return unread
        for child in found.unwrap():
            followed = self._followed.get(child.run_id)
            if followed is None:
                durable = self.durable_of(child.program)
                if durable is None or not child.started:
                    continue
                top = child.seq if seq is None else seq
                followed = self._followed[child.run_id] = _Followed(
                    StoredFollow(self.store, durable, child.run_id), parent, top
                )
            if followed.done:
                continue
            was_over = followed.over
            if not was_over:
                events = self._events(child.run_id, followed)
                if isinstance(events, Failure):
                    failing: DurableError = events.failure()
                    return failing
                out.extend((followed.seq, child.run_id, parent, event) for event in events.unwrap())
            failed = self._walk(child.run_id, followed.seq, out)
            if failed is not None:
                return failed
            followed.done = was_over  # ended before this look: its children were walked after it ended
        return None

    def look(self, position_of: Callable[[int], int]) -> Result[tuple[ChildEvent, ...], DurableError]:
        """What the descendants did since the last look, each under the root's effect at ``position_of(seq)``.

        Example:
            >>> from agentsm_fn.durable import SqliteStore
            >>> store = SqliteStore.open(":memory:").unwrap()
            >>> ChildrenFollow(store, "r1", lambda name: None).look(lambda seq: seq).unwrap()
            ()
            >>> store.close()
        """
        out: list[tuple[int, str, str, RunEvent]] = []
        failed = self._walk(self.run_id, None, out)
        if failed is not None:
            return Failure(failed)
        return Success(
            tuple(
                ChildEvent(
                    run_id=self.run_id,
                    position=position_of(seq),
                    child_run_id=child,
                    parent_run_id=parent,
                    event=e,
                )
                for seq, child, parent, e in out
            )
        )
