"""Private: the breadth-first search over (state, key(memory), run-property monitors).

One idea: a level-by-level BFS whose nodes are kept in parallel lists (parent, event,
outcomes fed, state, memory, depth), so a node costs a few list slots and its memory,
and the first broken rule found is at the smallest depth: walking the parents back gives
the shortest run that breaks it. Every edge is judged by the kit's
:class:`~verification.kit._rules.RunRules`, exactly as a generated run's step is.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Hashable, Iterable
from typing import Generic, TypeVar

import attrs

from agentsm_fn.core.snapshot import Snapshot, Status
from verification.explore._successors import Choices
from verification.kit._drive import Moved, branches
from verification.kit._render import short
from verification.kit._rules import Broken, RunRules
from verification.kit.run_properties import Monitors, begin_all

__all__ = ["Found", "Search", "Unhashable"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


class Unhashable(TypeError):
    """A memory (or what ``key`` made of it) cannot be hashed, so visits cannot be counted."""


def _seen(seen: set[Hashable], mark: tuple[object, Hashable, Monitors]) -> bool:
    """Whether ``mark`` was visited; mark it visited."""
    try:
        if mark in seen:
            return True
        seen.add(mark)
    except TypeError as exc:
        why = (
            f"{type(mark[1]).__name__} cannot be hashed ({exc}): pass key= to map memory to a hashable value"
        )
        raise Unhashable(why) from None
    return False


@attrs.frozen(kw_only=True)
class Found(Generic[StateT, EventT]):
    """A broken rule: the node whose step broke it, and that last step's event and outcomes."""

    broken: Broken
    node: int
    event: EventT | None
    target: StateT | None
    outcomes: tuple[object, ...]


class Search(Generic[StateT, EventT, MemoryT]):
    """One exploration's nodes and counters; :meth:`run` fills them."""

    def __init__(
        self,
        rules: RunRules[StateT, EventT, MemoryT],
        choices: Choices[StateT, EventT, MemoryT],
        key: Callable[[MemoryT], Hashable] | None,
    ) -> None:
        self.rules = rules
        self.choices = choices
        self.key = key
        self.parent: list[int] = []
        self.event: list[EventT | None] = []
        self.fed: list[tuple[object, ...]] = []
        self.state: list[StateT] = []
        self.memory: list[MemoryT] = []
        self.depth: list[int] = []
        self.limit: list[int | None] = []
        self.monitors: list[Monitors] = []
        self.edges = 0
        self.deepest = 0
        self.cut = False

    def _add(
        self,
        parent: int,
        event: EventT | None,
        fed: tuple[object, ...],
        snapshot: Snapshot[StateT, MemoryT],
        limit: int | None,
        monitors: Monitors,
    ) -> int:
        self.parent.append(parent)
        self.event.append(event)
        self.fed.append(fed)
        self.state.append(snapshot.state)
        self.memory.append(snapshot.memory)
        self.depth.append(snapshot.steps)
        self.limit.append(limit)
        self.monitors.append(monitors)
        return len(self.parent) - 1

    def run(
        self, starts: Iterable[tuple[StateT, MemoryT]], depth: int | None, max_states: int | None
    ) -> Found[StateT, EventT] | None:
        """Explore from ``starts`` (state, memory); the first broken rule at the smallest depth, or None."""
        rules, machine, key = self.rules, self.rules.machine, self.key
        terminals, seen = machine.terminals, set[Hashable]()
        level: list[int] = []
        for state, memory in starts:
            monitors = begin_all(rules.properties, memory)
            mark = (state, memory if key is None else key(memory), monitors)
            if _seen(seen, mark):
                continue
            start = Snapshot(state=state, memory=memory)
            node = self._add(-1, None, (), start, rules.limit_for(state, memory), monitors)
            broken = rules.judge_start(memory)
            if broken is not None:
                return Found(broken=broken, node=node, event=None, target=None, outcomes=())
            if state not in terminals:
                level.append(node)
        while level:
            following: list[int] = []
            for node in level:
                if max_states is not None and len(self.parent) >= max_states:
                    self.cut = True
                    return None
                steps = self.depth[node]
                here = Snapshot(state=self.state[node], memory=self.memory[node], steps=steps)
                for went in branches(machine, here, self.choices, rules.max_effects):
                    if not isinstance(went, Moved):
                        fed = tuple(short(o) for o in went.outcomes)
                        broken_stop = rules.judge_stop(went.failure, fed)
                        if broken_stop is None:
                            broken_stop = rules.judge_end(self.monitors[node])
                        if broken_stop is not None:
                            return Found(
                                broken=broken_stop, node=node, event=None, target=None, outcomes=went.outcomes
                            )
                        continue
                    self.edges += 1
                    monitors, broken_step = rules.judge(
                        self.memory[node], went, self.limit[node], self.monitors[node]
                    )
                    _, event, target = went.row
                    if broken_step is not None:
                        return Found(
                            broken=broken_step, node=node, event=event, target=target, outcomes=went.outcomes
                        )
                    after = went.snapshot
                    mark = (target, after.memory if key is None else key(after.memory), monitors)
                    if _seen(seen, mark):
                        continue
                    child = self._add(node, event, went.outcomes, after, self.limit[node], monitors)
                    self.deepest = max(self.deepest, steps + 1)
                    if after.status is Status.FINISHED:
                        broken_end = rules.judge_end(monitors)
                        if broken_end is not None:
                            return Found(broken=broken_end, node=child, event=None, target=None, outcomes=())
                    elif depth is not None and steps + 1 >= depth:
                        self.cut = True
                    else:
                        following.append(child)
            level = following
        return None

    def chain(self, node: int) -> list[int]:
        """The nodes from a start to ``node``, in order."""
        nodes = []
        while node >= 0:
            nodes.append(node)
            node = self.parent[node]
        return nodes[::-1]
