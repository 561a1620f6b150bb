"""A team of agents that hand a conversation to each other: :class:`Handoff` and :class:`Team` values.

A :class:`Handoff` says that agent ``source`` hands the conversation to agent ``target`` (a program
name, with the target's machine), showing it what ``input_filter`` keeps of the conversation. It
happens when the source reaches the state ``at`` (a state that always hands over, such as a terminal
``HANDED_OFF``), or, with ``at=None``, may happen when the source ends in any terminal state. A
:class:`Team` names its agents (the first takes the conversation first) and its handoffs. Both are
pure data: the verifier reads them (``python -m verification module:TEAM``) to prove that the team,
taken together, always has a way to finish (SM017).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, TypeAlias

import attrs

from agentsm_fn.core.machine import Machine
from agentsm_fn.llm.messages import Message

__all__ = ["AnyMachine", "Handoff", "Team", "keep_everything"]

AnyMachine: TypeAlias = Machine[Any, Any, Any]
"""A machine of any states, events and memory (a team's agents differ in all three)."""


def keep_everything(messages: tuple[Message, ...]) -> tuple[Message, ...]:
    """The default input filter: the target agent sees the whole conversation.

    Example:
        >>> from agentsm_fn.llm.messages import UserMessage
        >>> keep_everything((UserMessage(content="refund order 7"),))[0].content
        'refund order 7'
    """
    return messages


@attrs.frozen(kw_only=True)
class Handoff:
    """Agent ``source`` hands the conversation to agent ``target`` (whose machine is ``machine``).

    ``at`` is the source machine's state whose arrival hands the conversation over (it is then no
    end of the team's run); None: the source may hand over when it ends, in any terminal state.

    Example:
        >>> import enum
        >>> class S(enum.Enum):
        ...     ANSWERING = 1
        ...     HANDED_OFF = 2
        >>> class E(enum.Enum):
        ...     TRANSFER = 1
        >>> agent = Machine(states=S, events=E, initial=S.ANSWERING, terminals=frozenset({S.HANDED_OFF}),
        ...                 table={}, handlers={})
        >>> str(Handoff(source="triage", target="refunds", machine=agent, at=S.HANDED_OFF))
        'triage (at HANDED_OFF) hands off to refunds'
    """

    source: str
    target: str
    machine: AnyMachine = attrs.field(repr=False)
    at: enum.Enum | None = None
    input_filter: Callable[[tuple[Message, ...]], tuple[Message, ...]] = keep_everything

    def __str__(self) -> str:
        where = "" if self.at is None else f" (at {self.at.name})"
        return f"{self.source}{where} hands off to {self.target}"


def _frozen(agents: Mapping[str, AnyMachine]) -> Mapping[str, AnyMachine]:
    return MappingProxyType(dict(agents))


@attrs.frozen(kw_only=True)
class Team:
    """Agents by program name (the first takes the conversation first) and the handoffs between them.

    A handoff's target need not be listed: its machine comes with the handoff.

    Example:
        >>> import enum
        >>> class S(enum.Enum):
        ...     ANSWERING = 1
        ...     HANDED_OFF = 2
        >>> class E(enum.Enum):
        ...     TRANSFER = 1
        >>> agent = Machine(states=S, events=E, initial=S.ANSWERING, terminals=frozenset({S.HANDED_OFF}),
        ...                 table={}, handlers={})
        >>> back = Handoff(source="triage", target="refunds", machine=agent, at=S.HANDED_OFF)
        >>> team = Team(agents={"triage": agent}, handoffs=(back,))
        >>> team.entry, list(team.members()), team.problems()
        ('triage', ['triage', 'refunds'], ())
    """

    agents: Mapping[str, AnyMachine] = attrs.field(converter=_frozen)
    handoffs: tuple[Handoff, ...] = ()
    name: str = ""

    @property
    def entry(self) -> str:
        """The agent that takes the conversation first (the first of ``agents``)."""
        return next(iter(self.agents))

    def members(self) -> Mapping[str, AnyMachine]:
        """Every agent: those listed, then the targets of handoffs that are not, in order."""
        found = dict(self.agents)
        for h in self.handoffs:
            found.setdefault(h.target, h.machine)
        return MappingProxyType(found)

    def problems(self) -> tuple[str, ...]:
        """What makes the team unreadable: no agent, a handoff from an unknown agent or state.

        Example:
            >>> Team(agents={}).problems()
            ('a team needs at least one agent',)
        """
        if not self.agents:
            return ("a team needs at least one agent",)
        members = self.members()
        found: list[str] = []
        for h in self.handoffs:
            source = members.get(h.source)
            if source is None:
                found.append(f"handoff {h}: no agent {h.source!r} in the team")
            elif h.at is not None and not isinstance(h.at, source.states):
                found.append(f"handoff {h}: {h.at!r} is not a state of {h.source}'s machine")
        return tuple(found)
