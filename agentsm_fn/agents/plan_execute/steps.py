"""Step agents: a plan step that names a durable agent is run by that agent, as a child run.

A :class:`StepAgent` (in :attr:`PlanExecuteConfig.step_agents`) is a durable agent program the
planner may give a step to: the planner is told the agents exist (:func:`agents_listing`), and a
step of the plan may be ``{"step": "<what to do>", "agent": "<its name>"}`` (:func:`step_plan_schema`
widens the planner's schema to allow it). The plan's steps run in order: the executor carries out
the ordinary steps before an agent's step with its tools, and its answer closes them; the agent's
step is then a :class:`~agentsm_fn.teams.ChildRun` of its program, started as a new turn
(:class:`~agentsm_fn.teams.StartTurn`) whose message is the step (:func:`step_run`). How the child
ended is the step's result (:func:`step_done`): its answer, or a step error that OBSERVE and
LOOP_CHECK handle as they handle a failed tool (``halt_on_tool_error``). The EXECUTE handler that
does this is :class:`~agentsm_fn.agents.plan_execute.stepping.ExecutingSteps`.
"""

from __future__ import annotations

import json
from collections.abc import Iterable

import attrs
from pyrsistent import pvector

from agentsm_fn.agents.plan_execute.config import PlanExecuteConfig
from agentsm_fn.agents.plan_execute.memory import PlanExecuteMemory
from agentsm_fn.agents.plan_execute.policy import PolicyViolation
from agentsm_fn.agents.plan_execute.step_values import AgentStep, StepAgent, plan_step_items
from agentsm_fn.agents.plan_execute.values import HaltCause, Observation
from agentsm_fn.agents.react.agent_tools import child_text
from agentsm_fn.llm.conversation import Conversation
from agentsm_fn.llm.json import JsonObject, JsonValue, freeze_object, thaw
from agentsm_fn.llm.messages import AssistantMessage, UserMessage
from agentsm_fn.teams.turns import StartTurn
from agentsm_fn.teams.values import ChildFinished, ChildOutcome, ChildRun

__all__ = [
    "STEP_AGENTS_USE",
    "STEP_TURNS",
    "agent_steps",
    "agents_listing",
    "executor_first",
    "next_agent_step",
    "planner_schema",
    "step_call_id",
    "step_done",
    "step_plan_schema",
    "step_run",
]

STEP_AGENTS_USE = 'a step one of them should do is {"step": "<what to do>", "agent": "<its name>"}'
"""How the planner is told to give a step to a step agent (in its ``{state}``, next to the agents)."""

STEP_TURNS = (
    "\nSteps marked for an agent are done by that agent, in order: when you have done the steps "
    "before one, answer with what you found, without calling a tool; the agent then does its step, "
    "and you are told its result."
)
"""What the executor's system prompt ends with when the plan gives steps to agents."""


def step_plan_schema(schema: JsonObject, agents: Iterable[StepAgent]) -> JsonObject:
    """The planner's schema, a step of which may also be ``{"step": ..., "agent": <a step agent>}``.

    Unchanged when there are no step agents, or the schema has no ``initial_steps`` array.

    Example:
        >>> from agentsm_fn.agents.plan_execute.config import DEFAULT_PLAN_SCHEMA
        >>> agent = StepAgent(name="refunds", description="Refunds", program="shop:REFUNDS")
        >>> wide = step_plan_schema(DEFAULT_PLAN_SCHEMA, [agent])["properties"]["initial_steps"]["items"]
        >>> wide["anyOf"][1]["properties"]["agent"]["enum"]
        pvector(['refunds'])
    """
    names = [agent.name for agent in agents]
    plain = thaw(schema)
    steps = plain.get("properties", {}).get("initial_steps") if isinstance(plain, dict) else None
    if not names or not isinstance(steps, dict) or steps.get("type") != "array":
        return schema
    named = {
        "type": "object",
        "required": ["step", "agent"],
        "properties": {"step": {"type": "string"}, "agent": {"enum": names}},
        "additionalProperties": False,
    }
    steps["items"] = {"anyOf": [steps.get("items", {"type": "string"}), named]}
    return freeze_object(plain)


def planner_schema(config: PlanExecuteConfig) -> JsonObject:
    """The schema PLAN asks for and checks: the planner's, widened for the config's step agents.

    Example:
        >>> planner_schema(PlanExecuteConfig()) == PlanExecuteConfig().planner.schema
        True
    """
    return step_plan_schema(config.planner.schema, config.step_agents)


def agents_listing(agents: Iterable[StepAgent]) -> JsonValue:
    """What the planner is told of the step agents: each one's name and what it does.

    Example:
        >>> agents_listing([StepAgent(name="refunds", description="Refunds", program="shop:R")])
        [{'name': 'refunds', 'description': 'Refunds'}]
    """
    return [{"name": agent.name, "description": agent.description} for agent in agents]


def agent_steps(mem: PlanExecuteMemory) -> tuple[AgentStep, ...]:
    """The plan's steps that name one of the config's step agents, in order.

    Example:
        >>> from agentsm_fn.agents.plan_execute.config import PlanExecuteConfig
        >>> from agentsm_fn.agents.plan_execute.values import Plan
        >>> agent = StepAgent(name="refunds", description="Refunds", program="shop:REFUNDS")
        >>> steps = ["a", {"step": "b", "agent": "refunds"}]
        >>> plan = Plan(goal="g", raw={"goal": "g", "initial_steps": steps})
        >>> mem = PlanExecuteMemory(input="x", config=PlanExecuteConfig(step_agents=[agent]), plan=plan)
        >>> [(s.index, s.text) for s in agent_steps(mem)]
        [(1, 'b')]
    """
    if mem.plan is None or not mem.config.step_agents:
        return ()
    by_name = {agent.name: agent for agent in mem.config.step_agents}
    return tuple(
        AgentStep(index=index, text=text, agent=by_name[name])
        for index, (text, name) in enumerate(plan_step_items(thaw(mem.plan.raw.get("initial_steps"))))
        if name is not None and name in by_name
    )


def step_call_id(step: AgentStep) -> str:
    """The id its result is observed under (``step-<number>``): a step ran once it has an observation.

    Example:
        >>> agent = StepAgent(name="r", description="", program="a:R")
        >>> step_call_id(AgentStep(index=0, text="t", agent=agent))
        'step-1'
    """
    return f"step-{step.number}"


def next_agent_step(mem: PlanExecuteMemory) -> AgentStep | None:
    """The first agent step that has not run yet (None: every one ran, or there are none).

    Example:
        >>> next_agent_step(PlanExecuteMemory(input="x")) is None
        True
    """
    steps = agent_steps(mem)
    ran = {seen.call_id for seen in mem.observations} if steps else set()
    return next((step for step in steps if step_call_id(step) not in ran), None)


def executor_first(mem: PlanExecuteMemory, step: AgentStep) -> bool:
    """Whether ordinary steps come before ``step`` since the previous agent step: the executor's, first.

    Example:
        >>> from agentsm_fn.agents.plan_execute.config import PlanExecuteConfig
        >>> from agentsm_fn.agents.plan_execute.values import Plan
        >>> agent = StepAgent(name="refunds", description="Refunds", program="shop:REFUNDS")
        >>> steps = ["a", {"step": "b", "agent": "refunds"}]
        >>> plan = Plan(goal="g", raw={"goal": "g", "initial_steps": steps})
        >>> mem = PlanExecuteMemory(input="x", config=PlanExecuteConfig(step_agents=[agent]), plan=plan)
        >>> executor_first(mem, agent_steps(mem)[0])
        True
    """
    before = [s.index for s in agent_steps(mem) if s.index < step.index]
    start = before[-1] + 1 if before else 0
    return step.index > start


def _context(mem: PlanExecuteMemory) -> Conversation:
    said = [
        m
        for m in mem.messages
        if isinstance(m, UserMessage) or (isinstance(m, AssistantMessage) and m.content and not m.tool_calls)
    ]
    return Conversation(messages=pvector(said))


def step_run(mem: PlanExecuteMemory, step: AgentStep) -> ChildRun:
    """The child run of ``step``: a new turn of its agent, the step its message (its context as thread).

    Example:
        >>> agent = StepAgent(name="refunds", description="Refunds", program="shop:REFUNDS", context=False)
        >>> run = step_run(PlanExecuteMemory(input="x"), AgentStep(index=0, text="Refund A-17", agent=agent))
        >>> run.program, run.memory.message, len(run.memory.thread.messages)
        ('shop:REFUNDS', 'Refund A-17', 0)
    """
    thread = _context(mem) if step.agent.context else Conversation()
    return ChildRun(program=step.agent.program, memory=StartTurn(message=step.text, thread=thread))


def _answer(result: object) -> str:
    final = getattr(result, "final_result", None) if isinstance(result, PlanExecuteMemory) else None
    if final is not None:
        return str(getattr(final, "answer", ""))
    if isinstance(result, PlanExecuteMemory):
        return json.dumps({"error": "the agent's run ended with no final result"})
    return child_text(result)


def step_done(mem: PlanExecuteMemory, step: AgentStep, outcome: ChildOutcome) -> PlanExecuteMemory:
    r"""``mem`` after ``step``'s agent ended: its result observed, told to the executor; a failure noted.

    A failed or cancelled child is an error observation, and (with the policy's
    ``halt_on_tool_error``) the violation LOOP_CHECK halts on, as a failed tool is.

    Example:
        >>> agent = StepAgent(name="refunds", description="Refunds", program="shop:REFUNDS")
        >>> step = AgentStep(index=0, text="Refund A-17", agent=agent)
        >>> done = ChildFinished(run_id="p.c3", program="shop:REFUNDS", state="Done", result="Refunded.")
        >>> after = step_done(PlanExecuteMemory(input="x"), step, done)
        >>> after.observations[0].call_id, after.observations[0].content, after.messages[-1].content
        ('step-1', 'Refunded.', 'Step 1 (Refund A-17) was done by the agent refunds. Its result:\nRefunded.')
    """
    name = step.agent.name
    if isinstance(outcome, ChildFinished):
        content, failed = _answer(outcome.result), False
        told = f"Step {step.number} ({step.text}) was done by the agent {name}. Its result:\n{content}"
    else:
        content, failed = f"ERROR: {type(outcome).__name__}: {outcome.describe()}", True
        told = (
            f"Step {step.number} ({step.text}) failed: the agent {name} could not do it ({content}). "
            "Do the step another way if you can, else answer with what you have."
        )
    seen = Observation(
        iteration=mem.iteration, call_id=step_call_id(step), tool=name, content=content, is_error=failed
    )
    violation = mem.violation
    if failed and violation is None and mem.config.policy.halt_on_tool_error:
        message = f"step agent {name!r} failed: {content[:300]}"
        violation = PolicyViolation("halt_on_tool_error", message, HaltCause.TOOL_FAILURE)
    return attrs.evolve(
        mem,
        observations=mem.observations.append(seen),
        messages=mem.messages.append(UserMessage(told)),
        violation=violation,
    )
