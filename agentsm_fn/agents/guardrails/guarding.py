"""A guarding state: a handler that runs guardrails over a stage's subjects, and routes each trip as an event.

:func:`guarding` makes the handler of a state whose only job is checking: it checks every
guardrail on every subject (guardrails in order, subject by subject), recording each check
in memory through a :class:`GuardLog`. A pure check runs at once; an LLM check is an
:class:`~agentsm_fn.llm.LlmCall` effect, and the next check waits for its outcome. Then:

* every check passed: emit ``passed`` (or the event ``passed(memory)`` picks);
* a check tripped: emit the event of its guardrail's :class:`OnTrip` (``refused``,
  ``ask_human`` or ``stopped``), with the memory ``on_trip`` makes of it; the table routes it;
* entered again at the same visit after an ``ASK_HUMAN`` trip (the machine's review state
  routes back once it has recorded the human's decision with :meth:`GuardLog.reviewed`):
  approved, the remaining checks go on; rejected, it emits ``refused``.

The handler is a :class:`Guarding`: it declares every event it can emit, its effects
(``LlmCall``, which turns its failures into outcomes), and :attr:`Guarding.routes`, which the
verifier reads to prove that every guardrail's trip has a row (SM015). A trip whose action has
no event is a :class:`~agentsm_fn.core.faults.Fault` at run time, and SM015 reports it first.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Generic, TypeVar

import attrs
from returns.result import Failure

from agentsm_fn.agents.guardrails.guardrail import Guardrail, LlmCheck
from agentsm_fn.agents.guardrails.log import HELD, GuardLog, GuardRoute
from agentsm_fn.agents.guardrails.values import GuardrailCheck, OnTrip, Trip, VisitOutcome
from agentsm_fn.core.effects import Effect
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import Decision, Handler, emit, perform
from agentsm_fn.llm.call import LlmCall
from agentsm_fn.llm.replies import LlmFailure, LlmOutcome, LlmReply

__all__ = ["Guarding", "guarding"]

E = TypeVar("E", bound=enum.Enum)
E_co = TypeVar("E_co", bound=enum.Enum, covariant=True)
M = TypeVar("M")
S = TypeVar("S")


@attrs.frozen(repr=False)
class Guarding(Handler[E_co, M], Generic[E_co, M, S]):
    """The handler of a guarding state (made by :func:`guarding`); see the module docstring."""

    stage: str
    guardrails: tuple[Guardrail[S], ...]
    subjects: Callable[[M], Sequence[S]]
    log: GuardLog[M]
    passed: E_co | Callable[[M], E_co]
    passes: frozenset[E_co]
    actions: Mapping[OnTrip, E_co]
    on_trip: Callable[[M, Trip, OnTrip], M]
    held: Callable[[M], Sequence[Guardrail[S]]] | None = None
    gate: Callable[[M], str | None] | None = None
    spend: Callable[[M, LlmOutcome], M] | None = None

    @property
    def routes(self) -> tuple[GuardRoute, ...]:
        """Every guardrail's actions and their events: its own, and ``REFUSE`` for a rejected review.

        Guardrails a memory holds (``held``) may take any action: each is listed for
        :data:`HELD` guardrails.
        """
        found: list[GuardRoute] = []
        for g in self.guardrails:
            for action in (g.on_trip, OnTrip.REFUSE) if g.on_trip is OnTrip.ASK_HUMAN else (g.on_trip,):
                found.append(GuardRoute(g.name, self.stage, action, self.actions.get(action)))
        if self.held is not None:
            found += [GuardRoute(HELD, self.stage, action, self.actions.get(action)) for action in OnTrip]
        return tuple(found)

    def outcome(self, event: enum.Enum, memory: M) -> VisitOutcome:
        """What the visit that left this state on ``event`` (with ``memory`` after it) did."""
        at = self.log.visit(memory)
        visit = [c for c in self.log.checks(memory) if c.stage == self.stage and c.at == at]
        action = next((a for a, e in self.actions.items() if e is event), None)
        checked = tuple(dict.fromkeys(c.guardrail for c in visit))
        last = visit[-1] if visit and action is not None else None
        if last is None or last.trip is None:
            return VisitOutcome(
                stage=self.stage, outcome="passed" if action is None else action.value, checked=checked
            )
        return VisitOutcome(
            stage=self.stage,
            outcome=action.value if action is not None else "passed",
            checked=checked,
            tripped=last.guardrail,
            reason=last.trip.reason,
        )

    def rails(self, memory: M) -> tuple[Guardrail[S], ...]:
        """The guardrails checked on ``memory``: the state's own, then those the memory holds."""
        return self.guardrails if self.held is None else (*self.guardrails, *self.held(memory))

    def enter(self, memory: M) -> Decision[E_co, M]:
        return self._go(memory)

    def resume(self, memory: M, effect: Effect[object], outcome: object) -> Decision[E_co, M]:
        done, subjects, rails = self._done(memory), self.subjects(memory), self.rails(memory)
        index = len(done)
        guardrail = rails[index % len(rails)] if index < len(subjects) * len(rails) else None
        if guardrail is None or not isinstance(guardrail.check, LlmCheck):
            return Failure(Fault(f"guarding {self.stage}: an outcome arrived for no LLM check"))
        if not isinstance(outcome, LlmReply | LlmFailure):
            return Failure(Fault(f"guarding {self.stage}: {type(outcome).__name__} is not an LLM outcome"))
        if self.spend is not None:
            memory = self.spend(memory, outcome)
        return self._checked(memory, index, rails, guardrail.check.read(outcome))

    @property
    def functions(self) -> tuple[Callable[..., object], ...]:
        checks = tuple(g.check.ask if isinstance(g.check, LlmCheck) else g.check for g in self.guardrails)
        return (self.subjects, *checks)

    @property
    def events(self) -> frozenset[enum.Enum] | None:
        return frozenset({*self.passes, *self.actions.values()})

    @property
    def failure_event(self) -> enum.Enum | None:
        return None

    @property
    def effectful(self) -> bool:
        return self.held is not None or any(g.asks_llm for g in self.guardrails)

    @property
    def effects(self) -> frozenset[type[Effect[object]]] | None:
        return frozenset({LlmCall}) if self.effectful else None

    def __repr__(self) -> str:
        names = ", ".join(g.name for g in self.guardrails)
        return f"Guarding({self.stage}: {names})"

    def _done(self, memory: M) -> list[GuardrailCheck]:
        at = self.log.visit(memory)
        return [c for c in self.log.checks(memory) if c.stage == self.stage and c.at == at]

    def _go(self, memory: M) -> Decision[E_co, M]:
        done, subjects, rails = self._done(memory), self.subjects(memory), self.rails(memory)
        if done and done[-1].trip is not None:
            last, trip = done[-1], done[-1].trip
            if last.review is False:
                return self._route(memory, trip, OnTrip.REFUSE)
            if last.review is None:
                return Failure(Fault(f"guarding {self.stage}: entered again after {trip.describe()}"))
        index = len(done)
        while index < len(subjects) * len(rails):
            number, guardrail = index // len(rails), rails[index % len(rails)]
            if isinstance(guardrail.check, LlmCheck):
                closed = None if self.gate is None else self.gate(memory)
                if closed is not None:  # not asked: it trips (a guardrail fails closed)
                    return self._checked(memory, index, rails, f"the check was not asked: {closed}")
                call = LlmCall(guardrail.check.ask(subjects[number]), purpose=f"guardrail {guardrail.name}")
                return perform(call, memory)
            reason = guardrail.check(subjects[number])
            if reason is not None:
                return self._checked(memory, index, rails, reason)
            memory = self.log.recorded(memory, self._check(memory, index, rails, None))
            index += 1
        passed = self.passed
        return emit(passed, memory) if isinstance(passed, enum.Enum) else emit(passed(memory), memory)

    def _check(
        self, memory: M, index: int, rails: Sequence[Guardrail[S]], reason: str | None
    ) -> GuardrailCheck:
        number, guardrail = index // len(rails), rails[index % len(rails)]
        trip = None
        if reason is not None:
            trip = Trip(
                guardrail=guardrail.name,
                stage=self.stage,
                on_trip=guardrail.on_trip,
                reason=reason,
                message=guardrail.refusal(reason),
                subject=number,
            )
        at = self.log.visit(memory)
        return GuardrailCheck(guardrail=guardrail.name, stage=self.stage, at=at, subject=number, trip=trip)

    def _checked(
        self, memory: M, index: int, rails: Sequence[Guardrail[S]], reason: str | None
    ) -> Decision[E_co, M]:
        check = self._check(memory, index, rails, reason)
        memory = self.log.recorded(memory, check)
        if check.trip is None:
            return self._go(memory)
        return self._route(memory, check.trip, check.trip.on_trip)

    def _route(self, memory: M, trip: Trip, action: OnTrip) -> Decision[E_co, M]:
        event = self.actions.get(action)
        if event is None:
            message = f"{trip.describe()}, and guarding {self.stage} has no event to {action.value}"
            return Failure(Fault(message))
        return emit(event, self.on_trip(memory, trip, action))


def _unchanged(memory: M, trip: Trip, action: OnTrip) -> M:
    return memory


def guarding(
    stage: str,
    guardrails: Iterable[Guardrail[S]],
    *,
    subjects: Callable[[M], Sequence[S]],
    log: GuardLog[M],
    passed: E | Callable[[M], E],
    passes: Iterable[E] = (),
    refused: E | None = None,
    ask_human: E | None = None,
    stopped: E | None = None,
    on_trip: Callable[[M, Trip, OnTrip], M] = _unchanged,
    held: Callable[[M], Sequence[Guardrail[S]]] | None = None,
    gate: Callable[[M], str | None] | None = None,
    spend: Callable[[M, LlmOutcome], M] | None = None,
) -> Guarding[E, M, S]:
    """The handler of a state that checks ``guardrails`` on the ``subjects`` of a memory.

    ``passed`` is the event when every check passes (or a function of memory choosing one
    of ``passes``); ``refused``, ``ask_human`` and ``stopped`` are the events of the three
    actions (leave out those the state has no row for: the verifier reports a guardrail
    that needs one); ``on_trip(memory, trip, action)`` is the memory a trip leaves;
    ``held(memory)`` gives guardrails the memory holds (checked after the state's own), for
    guardrails that are data (``llm_guardrail``'s ``spec``); ``gate(memory)`` is a reason not
    to ask a model (a spent token budget, say: the LLM check then trips, unasked);
    ``spend(memory, outcome)`` is the memory after an LLM check's outcome (its usage counted).

    Example:
        >>> import enum
        >>> class Ev(enum.Enum):
        ...     OK = 1
        ...     NO = 2
        >>> from agentsm_fn.agents.guardrails import guardrail
        >>> log = GuardLog(checks=lambda m: m[1], with_checks=lambda m, c: (m[0], c), visit=lambda m: 0)
        >>> short = guardrail("short", lambda text: "too long" if len(text) > 5 else None)
        >>> state = guarding("input", [short], subjects=lambda m: (m[0],), log=log,
        ...                  passed=Ev.OK, refused=Ev.NO)
        >>> state.enter(("hello!", ())).unwrap()[0], state.enter(("hi", ())).unwrap()[0]
        (<Ev.NO: 2>, <Ev.OK: 1>)
        >>> state.enter(("hello!", ())).unwrap()[1][1][0].trip.message
        'Refused by the short guardrail: too long'
    """
    if isinstance(passed, enum.Enum):
        passes = (passed,)
    chosen = {OnTrip.REFUSE: refused, OnTrip.ASK_HUMAN: ask_human, OnTrip.STOP: stopped}
    return Guarding(
        stage=stage,
        guardrails=tuple(guardrails),
        subjects=subjects,
        log=log,
        passed=passed,
        passes=frozenset(passes),
        actions=MappingProxyType({action: event for action, event in chosen.items() if event is not None}),
        on_trip=on_trip,
        held=held,
        gate=gate,
        spend=spend,
    )
