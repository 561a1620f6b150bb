"""EXECUTE with step agents: the handler that runs a plan's agent steps as child runs.

:class:`ExecutingSteps` is EXECUTE's handler. With no agent step due it is the ordinary EXECUTE
(one chat call; :mod:`agentsm_fn.agents.plan_execute.loop`). When the next step of the plan names a
step agent (:mod:`agentsm_fn.agents.plan_execute.steps`), it asks for a
:class:`~agentsm_fn.teams.ChildRun` of that agent instead: at once when no ordinary step comes before
it, else when the executor answers (its answer closes the steps before it). The child's outcome is
routed like a delegating state's (:class:`~agentsm_fn.teams.Delegating`): each terminal state of the
child's machine (``ends``), its failure and its cancellation map to an event; :func:`step_child`
maps them all to ``TOOL_CALLS_PRESENT`` (EXECUTE -> OBSERVE -> LOOP_CHECK, the path a tool's result
takes). The handler carries each step agent's machine, so the verifier reads what EXECUTE delegates
to (SM016, SM017, SM018). :func:`plan_execute_machine` builds the agent's machine with them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Protocol

import attrs
from returns.result import Failure

from agentsm_fn.agents.plan_execute.graph import TABLE, Event, State
from agentsm_fn.agents.plan_execute.memory import Awaiting, PlanExecuteMemory
from agentsm_fn.agents.plan_execute.moves import advance, audit
from agentsm_fn.agents.plan_execute.step_values import AgentStep, StepAgent
from agentsm_fn.agents.plan_execute.steps import executor_first, next_agent_step, step_done, step_run
from agentsm_fn.core.effects import Effect
from agentsm_fn.core.faults import Fault
from agentsm_fn.core.handlers import Decision, Handler, perform
from agentsm_fn.core.machine import Machine
from agentsm_fn.llm.call import LlmCall
from agentsm_fn.llm.messages import AssistantMessage
from agentsm_fn.llm.replies import LlmReply
from agentsm_fn.teams.delegating import outcome_event
from agentsm_fn.teams.values import ChildCancelled, ChildFailed, ChildFinished, ChildOutcome, ChildRun

__all__ = ["AgentProgram", "ExecutingSteps", "StepChild", "step_agent", "step_child", "step_children"]

Mem = PlanExecuteMemory
AnyMachine = Machine[Any, Any, Any]


def _ends(value: Mapping[Any, Event]) -> Mapping[enum.Enum, Event]:
    return MappingProxyType(dict(value))


@attrs.frozen(kw_only=True)
class StepChild:
    """A step agent as EXECUTE knows it: the agent, its machine, and the event each way it ends maps to.

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> agent = StepAgent(name="refunds", description="Refunds", program="shop:REFUNDS")
        >>> sorted(s.name for s in step_child(agent, REACT_MACHINE).ends)
        ['Done', 'Error', 'Refused']
    """

    agent: StepAgent
    child: AnyMachine = attrs.field(repr=False)
    ends: Mapping[enum.Enum, Event] = attrs.field(converter=_ends)
    failed: Event | None = Event.TOOL_CALLS_PRESENT
    cancelled: Event | None = Event.TOOL_CALLS_PRESENT

    @property
    def program(self) -> str:
        """The agent's durable program (``module:attribute``)."""
        return self.agent.program

    @property
    def by_name(self) -> Mapping[str, Event]:
        """``ends`` keyed by the child terminal's name (how a child's outcome names it)."""
        return MappingProxyType({state.name: event for state, event in self.ends.items()})


def step_child(agent: StepAgent, machine: AnyMachine) -> StepChild:
    """``agent`` run by ``machine``: every way it ends is the step's result (``TOOL_CALLS_PRESENT``).

    Example:
        >>> from agentsm_fn.agents.plan_execute.machine import PLAN_EXECUTE_MACHINE
        >>> agent = StepAgent(name="research", description="Research", program="lab:RESEARCH")
        >>> {s.name: e.name for s, e in step_child(agent, PLAN_EXECUTE_MACHINE).ends.items()}
        {'FINALIZE': 'TOOL_CALLS_PRESENT', 'HALT': 'TOOL_CALLS_PRESENT'}
    """
    ends = {state: Event.TOOL_CALLS_PRESENT for state in machine.states if state in machine.terminals}
    return StepChild(agent=agent, child=machine, ends=ends)


class AgentProgram(Protocol):
    """A durable agent program (a ``Durable``): its ``module:attribute`` name and its machine."""

    @property
    def name(self) -> str:
        """The program's ``module:attribute`` name."""
        ...

    @property
    def machine(self) -> AnyMachine:
        """The machine its runs run."""
        ...


def step_agent(name: str, description: str, agent: AgentProgram, *, context: bool = True) -> StepChild:
    """The durable ``agent`` (a ``Durable``) as the step agent ``name``: the planner may give it steps.

    ``context``: the agent sees the user's request and the steps' results so far (else its step only).

    Example:
        >>> from agentsm_fn.durable import Durable
        >>> from agentsm_fn.agents.plan_execute.machine import PLAN_EXECUTE_MACHINE
        >>> research = Durable(name="lab:RESEARCH", machine=PLAN_EXECUTE_MACHINE)
        >>> step_agent("research", "Finds sources", research).agent.program
        'lab:RESEARCH'
    """
    declared = StepAgent(name=name, description=description, program=agent.name, context=context)
    return step_child(declared, agent.machine)


def _fault(problem: str) -> Decision[Event, Mem]:
    return Failure(Fault(f"EXECUTE: {problem}"))


@attrs.frozen(repr=False)
class ExecutingSteps(Handler[Event, Mem]):
    """EXECUTE's handler: the ordinary one (``execute``), and the step agents' child runs (``children``)."""

    execute: Handler[Event, Mem]
    children: tuple[StepChild, ...] = ()

    def _child(self, step: AgentStep) -> StepChild | None:
        return next((c for c in self.children if c.agent.name == step.agent.name), None)

    def _run(self, mem: Mem, step: AgentStep) -> Decision[Event, Mem]:
        if self._child(step) is None:
            known = ", ".join(c.agent.name for c in self.children) or "none"
            return _fault(
                f"the plan gives step {step.number} to the step agent {step.agent.name!r}, which this "
                f"machine does not declare (it declares {known}): build it with "
                "plan_execute_machine(steps=[step_child(agent, machine), ...])"
            )
        said = f"step {step.number} to the agent {step.agent.name} ({step.agent.program})"
        waiting = audit(attrs.evolve(mem, awaiting=Awaiting.STEP), State.EXECUTE, "step_agent", said)
        return perform(step_run(waiting, step), waiting)

    def enter(self, memory: Mem) -> Decision[Event, Mem]:
        step = next_agent_step(memory)
        if step is None or memory.iteration >= memory.max_iterations or executor_first(memory, step):
            return self.execute.enter(memory)
        return self._run(attrs.evolve(memory, iteration=memory.iteration + 1), step)

    def _ended(self, memory: Mem, effect: ChildRun, outcome: ChildOutcome) -> Decision[Event, Mem]:
        step = next_agent_step(memory)
        child = None if step is None else self._child(step)
        if step is None or child is None or child.program != effect.program:
            return _fault(f"{outcome.describe()}, but no agent step of the plan waits for {effect.program}")
        event = outcome_event(outcome, child.by_name, child.failed, child.cancelled)
        if event is None or (State.EXECUTE, event) not in TABLE:
            routed = (
                "maps to no event" if event is None else f"maps to {event.name}, which EXECUTE has no row for"
            )
            return _fault(
                f"step {step.number}'s agent {step.agent.name}: {outcome.describe()}, which {routed}"
            )
        done = step_done(memory, step, outcome)
        status = "ok" if isinstance(outcome, ChildFinished) else "error"
        logged = audit(done, State.EXECUTE, "step_agent", f"step {step.number} ({step.agent.name}): {status}")
        return advance(
            event, State.EXECUTE, logged, f"Step {step.number} done by the agent {step.agent.name}"
        )

    def resume(self, memory: Mem, effect: Effect[object], outcome: object) -> Decision[Event, Mem]:
        if isinstance(effect, ChildRun):
            if not isinstance(outcome, ChildFinished | ChildFailed | ChildCancelled):
                return _fault(f"{type(outcome).__name__} is not a child outcome")
            return self._ended(memory, effect, outcome)
        step = next_agent_step(memory)
        answered = (
            isinstance(effect, LlmCall)
            and memory.awaiting is Awaiting.CHAT
            and isinstance(outcome, LlmReply)
            and not outcome.tool_calls
            and outcome.content.strip()
        )
        if step is None or not answered or not isinstance(outcome, LlmReply):
            return self.execute.resume(memory, effect, outcome)
        closed = attrs.evolve(
            memory,
            usage=memory.usage + outcome.usage,
            messages=memory.messages.append(AssistantMessage(content=outcome.content)),
        )
        return self._run(audit(closed, State.EXECUTE, "answer", f"the steps before step {step.number}"), step)

    @property
    def functions(self) -> tuple[Callable[..., object], ...]:
        return self.execute.functions

    @property
    def events(self) -> frozenset[enum.Enum] | None:
        return self.execute.events

    @property
    def failure_event(self) -> enum.Enum | None:
        return self.execute.failure_event

    @property
    def effectful(self) -> bool:
        return True

    @property
    def effects(self) -> frozenset[type[Effect[object]]] | None:
        declared = self.execute.effects
        return declared if declared is None or not self.children else declared | {ChildRun}

    def __repr__(self) -> str:
        if not self.children:
            return repr(self.execute)
        return f"ExecutingSteps({self.execute!r}, children={[c.agent.name for c in self.children]})"


def step_children(machine: Machine[State, Event, Mem]) -> tuple[StepChild, ...]:
    """The step agents a plan-and-execute machine's EXECUTE runs (none for any other handler).

    Example:
        >>> from agentsm_fn.agents.plan_execute.machine import PLAN_EXECUTE_MACHINE
        >>> step_children(PLAN_EXECUTE_MACHINE)
        ()
    """
    handler = machine.handlers.get(State.EXECUTE)
    return handler.children if isinstance(handler, ExecutingSteps) else ()
