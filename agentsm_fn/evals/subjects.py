"""What an experiment evaluates: a :class:`Subject`, a durable program and how a case becomes its run.

A subject is a :class:`~agentsm_fn.durable.Durable` (either built-in agent, or any machine),
how a case's input becomes a start memory, and how the answer is read from the final memory.
:func:`subject_for` knows the built-in agents: a task string is the ReAct agent's ``task`` or
the plan-and-execute agent's ``input``, filled into the durable's ``template`` (its tools,
prompt, config), and the answer is ``final_answer`` or the final result's answer. For any
other machine a case gives its start memory (or a JSON object of its fields), and ``answer``
says what to grade (default: the memory's ``answer`` or ``final_answer`` field, if it has one).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar, cast

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.agents.plan_execute import PlanExecuteMemory, plan_execute_failure
from agentsm_fn.agents.react import AgentMemory, agent_failure
from agentsm_fn.durable import Durable
from agentsm_fn.durable.running.fields import memory_from_json
from agentsm_fn.durable.running.templates import memory_type
from agentsm_fn.evals.cases import Case
from agentsm_fn.llm.json import JsonValue, thaw

__all__ = ["Subject", "default_answer", "subject_for"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")

_TASK_FIELDS = ("task", "input")
"""The memory field a task string fills (the ReAct agent's, the plan-and-execute agent's)."""


def default_answer(memory: object) -> JsonValue:
    """The answer a memory holds: a built-in agent's, else its ``answer`` or ``final_answer`` field.

    Example:
        >>> default_answer(AgentMemory.new("2 + 2?")) is None
        True
    """
    if isinstance(memory, PlanExecuteMemory):
        return None if memory.final_result is None else memory.final_result.answer
    for field in ("final_answer", "answer"):
        found = getattr(memory, field, None)
        plain = found is None or isinstance(found, str | int | float | bool | Mapping | list | tuple)
        if plain and hasattr(memory, field):
            return cast(JsonValue, found)
    return None


@attrs.frozen(kw_only=True)
class Subject(Generic[StateT, EventT, MemoryT]):
    """A durable program to evaluate, how a case's input becomes its start memory, and its answer.

    ``durable.name`` (``module:attribute``) is what the runs are stored under, so each case's
    run opens in the inspector and replays. ``failure`` (default: the durable's own) says why a
    finished run failed (an agent in its error state).

    Example:
        >>> from agentsm_fn.agents.react import REACT_MACHINE
        >>> subject = subject_for(Durable(name="app:AGENT", machine=REACT_MACHINE))
        >>> subject.start(Case(name="c", input="2 + 2?")).unwrap().task
        '2 + 2?'
        >>> subject.start(Case(name="c", input={"tsak": "x"})).failure()
        'AgentMemory has no field tsak (fields: task, task_type, ...)'
    """

    durable: Durable[StateT, EventT, MemoryT]
    answer: Callable[[MemoryT], JsonValue] = default_answer

    @property
    def name(self) -> str:
        """The durable program's name."""
        return self.durable.name

    def _kind(self) -> type | None:
        template = self.durable.template
        return type(template) if template is not None else memory_type(self.durable.machine)

    def start(self, case: Case) -> Result[MemoryT, str]:
        """The start memory of ``case``'s run, or why its input does not fit (naming the field)."""
        kind = self._kind()
        given = case.input
        if kind is not None and isinstance(given, kind):
            return Success(cast(MemoryT, given))
        if kind is None:
            return Failure(f"{self.name}: its memory type is unknown; give the case a start memory")
        if isinstance(given, str):
            fields = attrs.fields_dict(kind) if attrs.has(kind) else {}
            task = next((f for f in _TASK_FIELDS if f in fields), None)
            if task is None:
                return Failure(f"a task string needs a memory with a task field; {kind.__name__} has none")
            given = {task: given}
        if not isinstance(given, Mapping):
            return Failure(f"the input is a {type(given).__name__}, not a {kind.__name__}, a task or fields")
        made = memory_from_json(kind, thaw(given), self.durable.template)
        if isinstance(made, Failure):
            return Failure(_short(made.failure().describe()))
        return Success(cast(MemoryT, made.unwrap()))


def _short(text: str, most: int = 48) -> str:
    """A field listing cut after a few names (a memory has many)."""
    head, sep, fields = text.partition("(fields: ")
    if not sep:
        return text
    names = fields.rstrip(")").split(", ")
    return f"{head}(fields: {', '.join(names[:2])}, ...)" if len(", ".join(names)) > most else text


def subject_for(durable: Durable[StateT, EventT, MemoryT]) -> Subject[StateT, EventT, MemoryT]:
    """The subject of a durable program; a built-in agent's runs that end in its error state fail.

    Example:
        >>> from agentsm_fn.agents.plan_execute import PLAN_EXECUTE_MACHINE
        >>> subject_for(Durable(name="app:PLAN", machine=PLAN_EXECUTE_MACHINE)).name
        'app:PLAN'
    """
    rules: dict[type, Callable[[Any], str | None]] = {
        AgentMemory: agent_failure,
        PlanExecuteMemory: plan_execute_failure,
    }
    rule = rules.get(memory_type(durable.machine) or object)
    if durable.failure is None and rule is not None:
        durable = attrs.evolve(durable, failure=rule)
    return Subject(durable=durable)
