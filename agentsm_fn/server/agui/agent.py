"""A durable program served over AG-UI: how a chat request becomes its first memory, and its result.

A :class:`~agentsm_fn.durable.Durable` says how to run a machine; it does not say how a
conversation becomes the machine's memory (for the ReAct agent: the agent's own memory,
with its tools and settings, and the task taken from the last user message). An
:class:`AguiAgent` adds that, and what ``RUN_FINISHED.result`` carries.
:func:`react_agui` makes one for a ReAct :class:`~agentsm_fn.shell.react_agent.Agent`, :func:`agui_for`
for a ``Durable`` whose template is a ReAct agent's memory.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.agents.react.errors import agent_failure
from agentsm_fn.agents.react.memory import AgentMemory
from agentsm_fn.agents.react.states import Event, State
from agentsm_fn.durable.fields import FieldProblem
from agentsm_fn.durable.runner import Durable
from agentsm_fn.llm.json import JsonValue
from agentsm_fn.server.agui.request import AguiRequest
from agentsm_fn.shell.react_agent import Agent

__all__ = ["AguiAgent", "agui_for", "react_agui"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


def _no_result(memory: Any) -> JsonValue:
    return None


@attrs.frozen(kw_only=True)
class AguiAgent(Generic[StateT, EventT, MemoryT]):
    """A durable program, the first memory of a run a request starts, and the JSON result of a finished one.

    ``memory`` refuses a request it cannot act on with a :class:`FieldProblem` (a 422 that
    names the field; nothing is stored). The endpoint is ``POST /agui/{durable.name}``.

    Example:
        >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
        >>> from agentsm_fn.shell.react_agent import AgentBuilder
        >>> agent = AgentBuilder.new("").llm(ScriptedLlm([])).build().unwrap()
        >>> served = react_agui(agent, "app:AGENT")
        >>> request = AguiRequest(thread_id="t", run_id="r", messages=())
        >>> served.name, served.memory(request).failure().describe()
        ('app:AGENT', 'messages: no user message to act on')
    """

    durable: Durable[StateT, EventT, MemoryT]
    memory: Callable[[AguiRequest], Result[MemoryT, FieldProblem]]
    result: Callable[[MemoryT], JsonValue] = _no_result

    @property
    def name(self) -> str:
        """The durable program's name: the last part of the endpoint's path."""
        return self.durable.name


def react_agui(agent: Agent, name: str) -> AguiAgent[State, Event, AgentMemory]:
    """``agent`` served over AG-UI as ``name``: its task is the request's last user message.

    The run's result is the agent's final answer. ``name`` is the durable program's
    ``module:attribute`` (see :class:`~agentsm_fn.durable.Durable`).

    Example:
        >>> from agentsm_fn.llm import UserMessage
        >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
        >>> from agentsm_fn.shell.react_agent import AgentBuilder
        >>> agent = AgentBuilder.new("").llm(ScriptedLlm([])).build().unwrap()
        >>> request = AguiRequest(thread_id="t", run_id="r", messages=(UserMessage("What is 2+2?"),))
        >>> react_agui(agent, "app:AGENT").memory(request).unwrap().task
        'What is 2+2?'
    """
    durable = Durable(
        name=name, machine=agent.machine, shell=agent.shell, failure=agent_failure, template=agent.memory
    )
    return _react(durable, agent.memory)


def _react(
    durable: Durable[State, Event, AgentMemory], template: AgentMemory
) -> AguiAgent[State, Event, AgentMemory]:
    def memory(request: AguiRequest) -> Result[AgentMemory, FieldProblem]:
        task = request.last_user_text.strip()
        if not task:
            return Failure(FieldProblem(field="messages", detail="no user message to act on"))
        return Success(template.evolve(task=task))

    def answer(memory: AgentMemory) -> JsonValue:
        return memory.final_answer

    return AguiAgent(durable=durable, memory=memory, result=answer)


CANNOT_DRIVE = (
    "AG-UI drives a ReAct agent's Durable whose template is the agent's memory (AgentMemory); "
    "serve another machine with create_app(..., routers=(*ROUTERS, agui_router([AguiAgent(...)])))"
)
"""Why :func:`agui_for` refuses a Durable."""


def agui_for(durable: Durable[Any, Any, Any]) -> Result[AguiAgent[Any, Any, Any], str]:
    """``durable`` served over AG-UI as :func:`react_agui` serves an agent, or why AG-UI cannot drive it.

    AG-UI can drive it when its ``template`` is a ReAct agent's memory (``Durable(...,
    template=agent.memory)``): a request's last user message becomes the task, the rest
    (tools, prompt, approvals) is the template's. ``agentsm-runs serve --agui`` uses it.

    Example:
        >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
        >>> from agentsm_fn.shell.react_agent import AgentBuilder
        >>> agent = AgentBuilder.new("").llm(ScriptedLlm([])).build().unwrap()
        >>> served = Durable(name="app:AGENT", machine=agent.machine, template=agent.memory)
        >>> agui_for(served).unwrap().name
        'app:AGENT'
        >>> agui_for(Durable(name="app:BARE", machine=agent.machine)).failure().startswith("AG-UI drives")
        True
    """
    template = durable.template
    if not isinstance(template, AgentMemory):
        return Failure(CANNOT_DRIVE)
    return Success(_react(durable, template))
