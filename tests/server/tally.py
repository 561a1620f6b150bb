"""A conversant machine whose turns are as long as the message asks: ``count to N`` takes N effects.

For the thread stream tests: a turn long enough that a client drops it while the server still has
events to send. Each ``Tick`` is performed at once; the turn's answer says how far it counted and
how many messages the thread held when it started.
"""

from __future__ import annotations

import enum
import re
from typing import ClassVar, Literal

import attrs
from returns.result import Result

from agentsm_fn.core import Effect, Fault, Perform, effectful, emit, perform
from agentsm_fn.core.machine import Machine, define_machine
from agentsm_fn.durable import Durable
from agentsm_fn.llm import AssistantMessage, Conversation, UserMessage, turn_start
from agentsm_fn.shell import Performers, Shell


class S(enum.Enum):
    COUNTING = "counting"
    DONE = "done"


class E(enum.Enum):
    TICKED = "ticked"
    ENOUGH = "enough"


@attrs.frozen
class Tick(Effect[int]):
    outcome_types: ClassVar[tuple[type, ...]] = (int,)
    retry_safe = True
    n: int


@attrs.frozen(kw_only=True)
class Tally:
    """A turn's memory: the thread so far, the message, how far to count and how far it got."""

    thread: Conversation = attrs.field(factory=Conversation)
    message: str = ""
    target: int = 0
    done: int = 0

    def thread_so_far(self) -> Conversation:
        answer = f"counted to {self.done} after {len(self.thread.messages)} messages"
        return self.thread.then([UserMessage(self.message), AssistantMessage(answer)])


def start(thread: Conversation, message: str) -> Tally:
    """``count to N`` counts to N (at most 10,000); any other message, to 0."""
    found = re.search(r"count to (\d{1,5})", message)
    return Tally(thread=thread, message=message, target=min(int(found.group(1)), 10_000) if found else 0)


def count(tally: Tally) -> Result[tuple[Literal[E.ENOUGH], Tally] | Perform[int, Tally], Fault]:
    return emit(E.ENOUGH, tally) if tally.done >= tally.target else perform(Tick(tally.done), tally)


def counted(tally: Tally, n: int) -> Result[tuple[Literal[E.TICKED], Tally], Fault]:
    return emit(E.TICKED, attrs.evolve(tally, done=n + 1))


COUNTER: Machine[S, E, Tally] = define_machine(
    name="tally",
    states=S,
    events=E,
    initial=S.COUNTING,
    terminals={S.DONE},
    table={(S.COUNTING, E.TICKED): S.COUNTING, (S.COUNTING, E.ENOUGH): S.DONE},
    handlers={S.COUNTING: effectful(count, counted)},
    budgeted={S.COUNTING},
    safety_cap=lambda tally: 10 + 3 * tally.target,
)


def _tick(effect: Tick) -> int:
    return effect.n


TALLY: Durable[S, E, Tally] = Durable(
    name="tests.server.tally:TALLY",
    machine=COUNTER,
    shell=lambda: Shell(Performers().on(Tick, _tick)),
    turns=turn_start(start),
)
"""The counting machine as a durable program whose runs are threads' turns."""
