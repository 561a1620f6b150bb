"""The machine: a frozen transition table, its handlers, initial and terminal states.

Build one with :func:`define_machine`, which validates everything at once and
raises a single :class:`MachineDefinitionError` listing every problem. The raw
``Machine(...)`` constructor does not validate (the verifier uses it to inspect
broken machines); :meth:`Machine.problems` lists what is wrong with one.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Generic, TypeAlias, TypeVar, cast

import attrs
from returns.result import Result

from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import Effectful, Handler, Pure

__all__ = ["HandlerLike", "Machine", "MachineDefinitionError", "define_machine"]

StateT = TypeVar("StateT", bound=enum.Enum)
"""The user's state enum."""
EventT = TypeVar("EventT", bound=enum.Enum)
"""The user's event enum."""
MemoryT = TypeVar("MemoryT")
"""The user's frozen memory type."""

HandlerLike: TypeAlias = (
    "Handler[EventT, MemoryT] | Callable[[MemoryT], Result[tuple[EventT, MemoryT], Fault]]"
)
"""A handler, or a plain pure function that :func:`define_machine` wraps as one."""


class MachineDefinitionError(ValueError):
    """A machine definition has problems; ``problems`` lists every one of them."""

    def __init__(self, name: str, problems: tuple[str, ...]) -> None:
        self.problems = problems
        listing = "\n".join(f"  - {p}" for p in problems)
        message = f"machine {name or '<unnamed>'} has {len(problems)} problem(s):\n{listing}"
        super().__init__(message)


def _freeze_table(
    table: Mapping[tuple[StateT, EventT], StateT],
) -> Mapping[tuple[StateT, EventT], StateT]:
    return table if isinstance(table, MappingProxyType) else MappingProxyType(dict(table))


class _Node:
    """One state of a compiled machine: its handler's entry points and its outgoing edges.

    Edges are keyed by ``id(event)``: enum members live as long as their class, so
    an id names exactly one member, and an int key hashes in C (``Enum.__hash__``
    is Python code, and the engine would otherwise call it several times a step).
    """

    __slots__ = ("edges", "enter", "handler", "receive", "state", "terminal")

    def __init__(self, state: object, handler: Handler[enum.Enum, object] | None, terminal: bool) -> None:
        self.state = state
        self.handler = handler
        self.terminal = terminal
        self.edges: dict[int, _Node] = {}
        self.enter: Callable[[object], object] | None = None
        self.receive: Callable[[object, object], object] | None = None
        if type(handler) is Pure:
            self.enter = handler.fn
        elif type(handler) is Effectful:
            self.enter, self.receive = handler.request, handler.receive
        elif handler is not None:
            self.enter = handler.enter


def _compile(machine: Machine[StateT, EventT, MemoryT]) -> dict[object, _Node]:
    # Handlers are only ever called with this machine's memory; the nodes erase the types.
    handlers = cast(Mapping[object, Handler[enum.Enum, object]], machine.handlers)
    nodes: dict[object, _Node] = {}

    def node(state: object) -> _Node:
        found = nodes.get(state)
        if found is None:
            found = nodes[state] = _Node(state, handlers.get(state), state in machine.terminals)
        return found

    for (source, event), target in machine.table.items():
        node(source).edges[id(event)] = node(target)
    for state in machine.handlers:
        node(state)
    node(machine.initial)
    return nodes


def _freeze_handlers(
    handlers: Mapping[StateT, Handler[EventT, MemoryT]],
) -> Mapping[StateT, Handler[EventT, MemoryT]]:
    return handlers if isinstance(handlers, MappingProxyType) else MappingProxyType(dict(handlers))


@attrs.frozen(kw_only=True)
class Machine(Generic[StateT, EventT, MemoryT]):
    """A state machine as data. Immutable: :meth:`extend` returns a new machine.

    ``budgeted`` names states that consume a bounded counter on every visit (the
    verifier's termination proof rests on them); ``safety_cap`` bounds the number
    of transitions of one run (an int, or a function of memory that must read only
    what a run does not change, such as configuration: ``run`` evaluates it once at
    the start, ``step`` before every step).
    """

    name: str = ""
    states: type[StateT]
    events: type[EventT]
    initial: StateT
    terminals: frozenset[StateT]
    table: Mapping[tuple[StateT, EventT], StateT] = attrs.field(converter=_freeze_table)
    handlers: Mapping[StateT, Handler[EventT, MemoryT]] = attrs.field(converter=_freeze_handlers)
    budgeted: frozenset[StateT] = frozenset()
    safety_cap: int | Callable[[MemoryT], int] = 10_000
    narrate: Callable[[StateT, EventT, MemoryT], str] | None = None
    _compiled: dict[object, _Node] | None = attrs.field(init=False, default=None, eq=False, repr=False)

    @property
    def compiled(self) -> Mapping[object, _Node]:
        """The machine as a graph of nodes for the engine's hot loop (built once, cached)."""
        cached = self._compiled
        if cached is None:
            cached = _compile(self)
            object.__setattr__(self, "_compiled", cached)  # a cache of derived data
        return cached

    def cap_for(self, memory: MemoryT) -> int:
        """The safety cap for a run from ``memory``."""
        cap = self.safety_cap
        return cap if isinstance(cap, int) else cap(memory)

    def problems(self) -> tuple[str, ...]:
        """Every structural problem of this definition ("" means none), in a stable order."""
        return _problems(self)

    def extend(
        self,
        *,
        rows: Mapping[tuple[StateT, EventT], StateT] | None = None,
        remove_rows: Iterable[tuple[StateT, EventT]] = (),
        handlers: Mapping[StateT, HandlerLike[EventT, MemoryT]] | None = None,
        terminals: Iterable[StateT] | None = None,
        budgeted: Iterable[StateT] | None = None,
        name: str | None = None,
    ) -> Machine[StateT, EventT, MemoryT]:
        """A new validated machine with rows and handlers added or overridden.

        Example:
            >>> import enum
            >>> from agentsm_fn.core.handlers import emit
            >>> class S(enum.Enum):
            ...     A = 1
            ...     B = 2
            >>> class E(enum.Enum):
            ...     GO = 1
            >>> m = define_machine(states=S, events=E, initial=S.A, terminals={S.B},
            ...                    table={(S.A, E.GO): S.B}, handlers={S.A: lambda n: emit(E.GO, n)})
            >>> m2 = m.extend(rows={(S.A, E.GO): S.A}, terminals={S.A, S.B}, handlers={})
            >>> m.table[(S.A, E.GO)], m2.table[(S.A, E.GO)]
            (<S.B: 2>, <S.A: 1>)
        """
        table = dict(self.table)
        for key in remove_rows:
            table.pop(key, None)
        table.update(rows or {})
        new_terminals = self.terminals if terminals is None else frozenset(terminals)
        merged: dict[StateT, HandlerLike[EventT, MemoryT]] = {
            s: h for s, h in self.handlers.items() if s not in new_terminals
        }
        merged.update(handlers or {})
        return define_machine(
            name=self.name if name is None else name,
            states=self.states,
            events=self.events,
            initial=self.initial,
            terminals=new_terminals,
            table=table,
            handlers=merged,
            budgeted=self.budgeted if budgeted is None else budgeted,
            safety_cap=self.safety_cap,
            narrate=self.narrate,
        )


def _as_handler(h: HandlerLike[EventT, MemoryT]) -> Handler[EventT, MemoryT]:
    return h if isinstance(h, Handler) else Pure(h)


def define_machine(
    *,
    states: type[StateT],
    events: type[EventT],
    initial: StateT,
    terminals: Iterable[StateT],
    table: Mapping[tuple[StateT, EventT], StateT],
    handlers: Mapping[StateT, HandlerLike[EventT, MemoryT]],
    budgeted: Iterable[StateT] = (),
    safety_cap: int | Callable[[MemoryT], int] = 10_000,
    narrate: Callable[[StateT, EventT, MemoryT], str] | None = None,
    name: str = "",
) -> Machine[StateT, EventT, MemoryT]:
    """Build and validate a machine; raise one error listing every problem.

    Example:
        >>> import enum
        >>> from agentsm_fn.core.handlers import emit
        >>> class S(enum.Enum):
        ...     IDLE = 1
        ...     DONE = 2
        >>> class E(enum.Enum):
        ...     START = 1
        >>> m = define_machine(states=S, events=E, initial=S.IDLE, terminals={S.DONE},
        ...                    table={(S.IDLE, E.START): S.DONE},
        ...                    handlers={S.IDLE: lambda mem: emit(E.START, mem)})
        >>> m.table[(S.IDLE, E.START)]
        <S.DONE: 2>
    """
    machine: Machine[StateT, EventT, MemoryT] = Machine(
        name=name,
        states=states,
        events=events,
        initial=initial,
        terminals=frozenset(terminals),
        table=table,
        handlers={s: _as_handler(h) for s, h in handlers.items()},
        budgeted=frozenset(budgeted),
        safety_cap=safety_cap,
        narrate=narrate,
    )
    found = machine.problems()
    if found:
        raise MachineDefinitionError(name, found)
    return machine


def _label(value: object) -> str:
    return value.name if isinstance(value, enum.Enum) else repr(value)


def _problems(m: Machine[StateT, EventT, MemoryT]) -> tuple[str, ...]:
    problems: list[str] = []
    states, events = m.states, m.events

    def is_state(value: object) -> bool:
        return isinstance(value, states)

    if not (isinstance(states, type) and issubclass(states, enum.Enum)):
        return (f"states must be an enum class, got {states!r}",)
    if not (isinstance(events, type) and issubclass(events, enum.Enum)):
        return (f"events must be an enum class, got {events!r}",)
    if not is_state(m.initial):
        problems.append(f"initial state {_label(m.initial)} is not a member of {states.__name__}")
    for t in sorted(m.terminals, key=_label):
        if not is_state(t):
            problems.append(f"terminal state {_label(t)} is not a member of {states.__name__}")
    for b in sorted(m.budgeted, key=_label):
        if not is_state(b):
            problems.append(f"budgeted state {_label(b)} is not a member of {states.__name__}")
    for key, target in m.table.items():
        if not (isinstance(key, tuple) and len(key) == 2):
            problems.append(f"row key {key!r} is not a (state, event) pair")
            continue
        source, event = key
        row = f"row ({_label(source)}, {_label(event)}) -> {_label(target)}"
        if not is_state(source):
            problems.append(f"{row}: source {_label(source)} is not a member of {states.__name__}")
        if not isinstance(event, events):
            problems.append(f"{row}: event {_label(event)} is not a member of {events.__name__}")
        if not is_state(target):
            problems.append(f"{row}: target {_label(target)} is not a member of {states.__name__}")
    for state, handler in m.handlers.items():
        if not is_state(state):
            problems.append(f"handler for {_label(state)}, which is not a member of {states.__name__}")
        elif state in m.terminals:
            problems.append(
                f"handler for terminal state {state.name} would never run; remove it "
                "(the run stops on arrival)"
            )
        if not isinstance(handler, Handler):
            problems.append(f"handler for {_label(state)} is not a Handler: {handler!r}")
    for state in states:
        if state not in m.terminals and state not in m.handlers:
            problems.append(
                f"non-terminal state {state.name} has no handler; add one to handlers= "
                "or list it in terminals="
            )
    if isinstance(m.safety_cap, int) and m.safety_cap < 1:
        problems.append(f"safety_cap must be at least 1, got {m.safety_cap}")
    return tuple(problems)
