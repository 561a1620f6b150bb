"""A durable program served over AG-UI: how a chat request becomes its first memory, and its result.

A :class:`~agentsm_fn.durable.Durable` says how to run a machine; it does not say how a
conversation becomes the machine's memory (for a built-in agent: the agent's own memory,
with its tools and settings, and the task taken from the last user message). An
:class:`AguiAgent` adds that, what ``RUN_FINISHED.result`` carries, and the typed reason
(``RUN_ERROR.code``) of a run that ended in a state its ``Durable`` calls failed.
:func:`react_agui` makes one for a ReAct :class:`~agentsm_fn.shell.react_agent.Agent`,
:func:`plan_execute_agui` for a plan-and-execute :class:`~agentsm_fn.shell.plan_execute_agent.AgentFSM`,
and :func:`agui_for` for a ``Durable`` whose template is either agent's memory.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, Generic, TypeVar

import attrs
from returns.result import Failure, Result, Success

from agentsm_fn.agents.output.result_type import ResultT
from agentsm_fn.agents.plan_execute import Event as PlanEvent
from agentsm_fn.agents.plan_execute import PlanExecuteMemory, plan_execute_failure, plan_execute_result
from agentsm_fn.agents.plan_execute import State as PlanState
from agentsm_fn.agents.react.errors import agent_failure
from agentsm_fn.agents.react.guards import INPUT, OUTPUT
from agentsm_fn.agents.react.memory import AgentMemory
from agentsm_fn.agents.react.result import agent_result
from agentsm_fn.agents.react.states import Event, State
from agentsm_fn.core.snapshot import Snapshot
from agentsm_fn.durable.running.durable import Durable
from agentsm_fn.durable.running.fields import FieldProblem
from agentsm_fn.llm.json import JsonValue
from agentsm_fn.server.agui.request import AguiRequest
from agentsm_fn.server.values import public_json
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from agentsm_fn.shell.react_agent import Agent

__all__ = ["AguiAgent", "agui_for", "plan_execute_agui", "react_agui"]

StateT = TypeVar("StateT", bound=enum.Enum)
EventT = TypeVar("EventT", bound=enum.Enum)
MemoryT = TypeVar("MemoryT")


def _no_result(memory: Any) -> JsonValue:
    return None


def _no_message(memory: Any) -> str | None:
    return None


def _coded(
    code: Callable[[Any], str], failure: Callable[[Snapshot[Any, Any]], str | None] | None
) -> Callable[[Snapshot[Any, Any]], tuple[str, str] | None]:
    """``failure``'s verdict on a finished run as ``(code, reason)``; ``code`` reads the run's memory."""

    def error(snapshot: Snapshot[Any, Any]) -> tuple[str, str] | None:
        why = None if failure is None else failure(snapshot)
        return None if why is None else (code(snapshot.memory), why)

    return error


def _task(request: AguiRequest) -> Result[str, FieldProblem]:
    """The request's last user message: what a built-in agent is asked to do."""
    task = request.last_user_text.strip()
    if not task:
        return Failure(FieldProblem(field="messages", detail="no user message to act on"))
    return Success(task)


@attrs.frozen(kw_only=True)
class AguiAgent(Generic[StateT, EventT, MemoryT]):
    """A durable program, the first memory of a run a request starts, and the JSON result of a finished one.

    ``memory`` refuses a request it cannot act on with a :class:`FieldProblem` (a 422 that
    names the field; nothing is stored). The endpoint is ``POST /agui/{durable.name}``.
    ``error`` says whether a finished run failed, as ``(code, reason)`` (None: it succeeded);
    such a run ends the AG-UI run with ``RUN_ERROR`` (that code, the reason redacted). By
    default it is the ``Durable``'s ``failure`` with the code ``"Failed"``. ``answer_message``
    is a finished run's answer that no LLM reply said (a plan-and-execute finish tool's output, a
    ReAct agent's refusal or the answer of the agent it handed the conversation to):
    it is sent as the last text message, before ``RUN_FINISHED`` (None: the replies said it).

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
    answer_message: Callable[[MemoryT], str | None] = _no_message
    error: Callable[[Snapshot[StateT, MemoryT]], tuple[str, str] | None] = attrs.field()

    @error.default
    def _durable_failure(self) -> Callable[[Snapshot[StateT, MemoryT]], tuple[str, str] | None]:
        return _coded(lambda _memory: "Failed", self.durable.failure)

    @property
    def name(self) -> str:
        """The durable program's name: the last part of the endpoint's path."""
        return self.durable.name


def react_agui(agent: Agent[ResultT], name: str) -> AguiAgent[State, Event, AgentMemory]:
    """``agent`` served over AG-UI as ``name``: its task is the request's last user message.

    The run's result is the agent's final answer, or its typed result as JSON (an attrs
    instance as an object of its fields); a run that ends in Error is a ``RUN_ERROR``
    with the code ``AgentFailed``. A run a guardrail refused (Refused) ends as a chat frontend
    expects: the refusal message is the assistant's last text message, then ``RUN_FINISHED``
    (its result the message, or None for a typed result: none was given); the stored run is
    still failed (``agent_failure``), as ``GET /runs/{id}`` shows. ``name`` is the durable
    program's ``module:attribute`` (see :class:`~agentsm_fn.durable.Durable`).

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
        name=name,
        machine=agent.machine,
        shell=agent.shell,
        failure=agent_failure,
        result=agent_result,
        template=agent.memory,
    )
    return _react(durable, agent.memory)


def _react(
    durable: Durable[State, Event, AgentMemory], template: AgentMemory
) -> AguiAgent[State, Event, AgentMemory]:
    def memory(request: AguiRequest) -> Result[AgentMemory, FieldProblem]:
        return _task(request).map(lambda task: template.evolve(task=task))

    def answer(memory: AgentMemory) -> JsonValue:
        if memory.output is None:
            return memory.final_answer
        return public_json(agent_result(memory))

    def failure(snapshot: Snapshot[State, AgentMemory]) -> str | None:
        return None if snapshot.state is State.Refused else agent_failure(snapshot)

    failed = _coded(lambda _memory: "AgentFailed", failure)
    return AguiAgent(durable=durable, memory=memory, result=answer, answer_message=_told, error=failed)


def _told(memory: AgentMemory) -> str | None:
    """The answer no LLM reply of the run said: a refusal, or the answer of the agent it handed off to.

    Example:
        >>> from agentsm_fn.llm import ToolCall
        >>> from agentsm_fn.tools.spec import ToolDef
        >>> hand = ToolDef(name="transfer_to_refunds", description="", agent="a:R", hands_off=True)
        >>> handed = AgentMemory.new("t").with_tools([hand]).evolve(
        ...     final_answer="Refunded.", last_observation="SUCCESS: Refunded.",
        ...     current_tool_call=ToolCall("c1", "transfer_to_refunds", {}))
        >>> _told(handed), _told(AgentMemory.new("t").evolve(final_answer="Paris."))
        ('Refunded.', None)
    """
    return memory.final_answer if memory.handed_to() is not None else _refusal(memory)


def _refusal(memory: AgentMemory) -> str | None:
    """The message of a run a guardrail refused (it ended in Refused), else None: the chat's answer then.

    Only an input or output guardrail's refusal ends a run (a refused tool call is observed and
    the run goes on), and a stop sets ``error``: so the last check, not passed, at either stage,
    with no error, is a refusal, and ``final_answer`` its message.

    Example:
        >>> from agentsm_fn.agents.guardrails import GuardrailCheck, OnTrip, Trip
        >>> trip = Trip(guardrail="own", stage="input", on_trip=OnTrip.REFUSE, reason="r", message="No.")
        >>> refused = AgentMemory.new("t").evolve(final_answer="No.", guardrail_checks=[
        ...     GuardrailCheck(guardrail="own", stage="input", at=0, trip=trip)])
        >>> _refusal(refused), _refusal(AgentMemory.new("t").evolve(final_answer="Paris."))
        ('No.', None)
    """
    last = memory.guardrail_checks[-1] if memory.guardrail_checks else None
    if last is None or last.passed or last.stage not in (INPUT, OUTPUT) or memory.error is not None:
        return None
    return memory.final_answer


def plan_execute_agui(
    agent: AgentFSM[ResultT], name: str
) -> AguiAgent[PlanState, PlanEvent, PlanExecuteMemory]:
    """The plan-and-execute ``agent`` served over AG-UI as ``name``: its input is the last user message.

    The run's result is its :class:`~agentsm_fn.agents.plan_execute.FinalResult` as JSON, with
    ``answer`` (the summary if there is one, else the executor's content), or its typed result
    as JSON (``AgentFSM.result_type``: an attrs instance as an object of its fields), as the
    stored run's (``plan_execute_result``) is; the answer is the last
    text message (a finish tool's output too, sent after its run); a run that halts is a
    ``RUN_ERROR`` whose code is the :class:`~agentsm_fn.agents.plan_execute.HaltCause`
    (``invalid_plan``, ``max_iterations``, ...). ``name`` is the durable program's ``module:attribute``.

    Example:
        >>> from agentsm_fn.llm import UserMessage
        >>> from agentsm_fn.shell.scripted_llm import ScriptedLlm
        >>> served = plan_execute_agui(AgentFSM(provider=ScriptedLlm([]), max_iterations=3), "app:PLANNER")
        >>> request = AguiRequest(thread_id="t", run_id="r", messages=(UserMessage("Compare PDF libraries"),))
        >>> first = served.memory(request).unwrap()
        >>> first.input, first.max_iterations
        ('Compare PDF libraries', 3)
    """
    template = agent.memory("")
    durable = Durable(
        name=name,
        machine=agent.machine,
        shell=agent.shell,
        failure=plan_execute_failure,
        result=plan_execute_result,
        template=template,
    )
    return _plan_execute(durable, template)


def _halt_cause(memory: PlanExecuteMemory) -> str:
    return "halted" if memory.error is None else memory.error.cause.value


def _final(memory: PlanExecuteMemory) -> JsonValue:
    done = memory.final_result
    if done is None:
        return None
    if memory.output is not None:  # a typed result: its value's JSON
        return public_json(memory.result)
    shown = public_json(done)
    return {"answer": public_json(done.answer), **shown} if isinstance(shown, dict) else shown


def _unsaid(memory: PlanExecuteMemory) -> str | None:
    """A finish tool's output, unless a summary call said the answer (the executor's reply says it else)."""
    done = memory.final_result
    if done is None or done.summary is not None or not done.stopped_by.startswith("finish_tool:"):
        return None
    return done.content


def _plan_execute(
    durable: Durable[PlanState, PlanEvent, PlanExecuteMemory], template: PlanExecuteMemory
) -> AguiAgent[PlanState, PlanEvent, PlanExecuteMemory]:
    def memory(request: AguiRequest) -> Result[PlanExecuteMemory, FieldProblem]:
        return _task(request).map(lambda task: attrs.evolve(template, input=task))

    halted = _coded(_halt_cause, plan_execute_failure)
    return AguiAgent(durable=durable, memory=memory, result=_final, answer_message=_unsaid, error=halted)


CANNOT_DRIVE = (
    "AG-UI drives a ReAct agent's or a plan-and-execute agent's Durable whose template is the agent's "
    "memory (AgentMemory, PlanExecuteMemory); "
    "serve another machine with create_app(..., routers=(*ROUTERS, agui_router([AguiAgent(...)])))"
)
"""Why :func:`agui_for` refuses a Durable."""


def agui_for(durable: Durable[Any, Any, Any]) -> Result[AguiAgent[Any, Any, Any], str]:
    """``durable`` served over AG-UI as :func:`react_agui` or :func:`plan_execute_agui` would, or why not.

    AG-UI can drive it when its ``template`` is a ReAct agent's memory (``Durable(...,
    template=agent.memory)``): a request's last user message becomes the task, the rest
    (tools, prompt, approvals) is the template's; or a plan-and-execute agent's
    (``template=agent.memory("")``): the message becomes the input, the rest (config, tools,
    policy, ``max_iterations``) is the template's. ``agentsm-runs serve --agui`` uses it.

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
    if isinstance(template, AgentMemory):
        return Success(_react(durable, template))
    if isinstance(template, PlanExecuteMemory):
        return Success(_plan_execute(durable, template))
    return Failure(CANNOT_DRIVE)
