"""Building the LLM requests of each stage from memory: pure string and value work.

* PLAN: one user message from the planner template, with ``response_schema``
  set to the planner's schema (Ollama maps it to ``/api/generate``'s ``format``),
  after a thread's earlier turns as context (:func:`thread_context`);
* INTAKE, in a thread over its context budget: the compression of its older turns;
* DECIDE (LLM mode): one user message, ``response_schema`` = the decision schema;
* EXECUTE: the executor's system prompt (goal and plan steps), then the chat
  history, with the tools the policy permits;
* FINALIZE: the chat history plus the summary instruction, with no tools.
"""

from __future__ import annotations

import attrs

from agentsm_fn.agents.output.values import OutputSpec
from agentsm_fn.agents.plan_execute.config import DECISION_SCHEMA
from agentsm_fn.agents.plan_execute.memory import PlanExecuteMemory
from agentsm_fn.agents.plan_execute.steps import (
    STEP_AGENTS_USE,
    STEP_TURNS,
    agent_steps,
    agents_listing,
    planner_schema,
)
from agentsm_fn.agents.plan_execute.values import Plan
from agentsm_fn.llm.call import LlmRequest
from agentsm_fn.llm.conversation import thread_compression_prompt
from agentsm_fn.llm.json import JsonValue, dumps, freeze
from agentsm_fn.llm.messages import AssistantMessage, Message, SystemMessage, UserMessage

__all__ = [
    "typed_request",
    "decide_request",
    "execute_request",
    "plan_prompt",
    "plan_text",
    "plan_request",
    "state_json",
    "summary_request",
    "intake_compression_request",
    "thread_context",
]


def state_json(mem: PlanExecuteMemory) -> str:
    """The planner's ``{state}``: the goal, the tools it may use, the iteration budget (and step agents).

    Example:
        >>> state_json(PlanExecuteMemory(input="x", normalized_input="Find PDF libs"))
        '{"available_tools":[],"goal":"Find PDF libs","iteration":0,"max_iterations":20}'
    """
    state: dict[str, JsonValue] = {
        "goal": mem.goal,
        "available_tools": [spec.name for spec in mem.config.visible_tools],
        "iteration": mem.iteration,
        "max_iterations": mem.max_iterations,
    }
    if mem.config.step_agents:
        state["step_agents"] = agents_listing(mem.config.step_agents)
        state["step_agents_use"] = STEP_AGENTS_USE
    return dumps(freeze(state))


def plan_prompt(mem: PlanExecuteMemory) -> str:
    """The planner template with ``{input}`` and ``{state}`` filled in.

    Example:
        >>> plan_prompt(PlanExecuteMemory(input="x", normalized_input="Find PDF libs")).splitlines()[0]
        'Create a plan for: Find PDF libs'
    """
    template = mem.config.planner.prompt_template
    return template.format_map({"input": mem.normalized_input, "state": state_json(mem)})


def thread_context(mem: PlanExecuteMemory) -> tuple[Message, ...]:
    """A thread's earlier turns as the planner's context: the summary, the users' and answers' text.

    The tool calls and results of earlier turns are left out: the planner is offered no tools,
    and a provider may refuse tool turns in a request without tools (Anthropic does).

    Example:
        >>> from agentsm_fn.llm.conversation import Conversation
        >>> from agentsm_fn.llm.messages import ToolCall, ToolResultMessage
        >>> turn = [UserMessage("I am Ada."), AssistantMessage(tool_calls=(ToolCall("c", "note", {}),)),
        ...         ToolResultMessage("c", "note", "ok"), AssistantMessage("Hello, Ada!")]
        >>> mem = PlanExecuteMemory(input="").start_turn(Conversation().then(turn), "My name?")
        >>> [m.content for m in thread_context(mem)]
        ['I am Ada.', 'Hello, Ada!']
    """
    return tuple(
        m
        for m in mem.conversation.sent()
        if isinstance(m, UserMessage) or (isinstance(m, AssistantMessage) and m.content and not m.tool_calls)
    )


def plan_request(mem: PlanExecuteMemory) -> LlmRequest:
    """PLAN's single-shot structured request (after a thread's earlier turns, in a thread).

    Example:
        >>> plan_request(PlanExecuteMemory(input="x")).response_schema["required"][0]
        'goal'
    """
    planner = mem.config.planner
    return LlmRequest(
        model=mem.config.model_for(planner.model),
        messages=(*thread_context(mem), UserMessage(plan_prompt(mem))),
        temperature=planner.temperature,
        response_schema=planner_schema(mem.config),
    )


def plan_text(plan: Plan) -> str:
    """The plan as compact JSON (for prompts).

    Example:
        >>> plan_text(Plan(goal="g"))
        '{"goal":"g","initial_steps":[],"required_capabilities":[]}'
    """
    if plan.raw:
        return dumps(plan.raw)
    standard = {
        "goal": plan.goal,
        "required_capabilities": list(plan.required_capabilities),
        "initial_steps": list(plan.initial_steps),
    }
    return dumps(freeze(standard))


def decide_request(mem: PlanExecuteMemory, plan: Plan) -> LlmRequest:
    """DECIDE's structured request (LLM mode).

    Example:
        >>> from agentsm_fn.agents.plan_execute.values import Plan
        >>> decide_request(PlanExecuteMemory(input="x"), Plan(goal="g")).response_schema["required"][0]
        'continue'
    """
    decider = mem.config.decider
    prompt = decider.prompt_template.format_map(
        {"input": mem.normalized_input or mem.input, "plan": plan_text(plan)}
    )
    return LlmRequest(
        model=mem.config.model_for(decider.model),
        messages=(UserMessage(prompt),),
        response_schema=DECISION_SCHEMA,
    )


def _system(mem: PlanExecuteMemory) -> SystemMessage:
    steps = list(mem.plan.initial_steps if mem.plan is not None else ())
    delegated = agent_steps(mem)
    for step in (s for s in delegated if s.index < len(steps)):
        steps[step.index] += f" (the agent {step.agent.name} does this step, not you)"
    listing = "\n".join(f"{n}. {step}" for n, step in enumerate(steps, start=1)) or "(no steps)"
    prompt = mem.config.executor.system_prompt.format_map({"goal": mem.goal, "steps": listing})
    return SystemMessage(prompt + (STEP_TURNS if delegated else ""))


def execute_request(mem: PlanExecuteMemory) -> LlmRequest:
    """EXECUTE's chat request: system prompt, history, and the permitted tools.

    Example:
        >>> from agentsm_fn.llm.messages import UserMessage
        >>> req = execute_request(PlanExecuteMemory(input="x", messages=[UserMessage("x")]))
        >>> type(req.messages[0]).__name__, len(req.messages), req.tools
        ('SystemMessage', 2, ())
    """
    executor = mem.config.executor
    messages: tuple[Message, ...] = (_system(mem), *mem.messages)
    request = LlmRequest(
        model=mem.config.model_for(executor.model),
        messages=messages,
        tools=mem.config.visible_tools,
        temperature=executor.temperature,
        max_tokens=executor.max_tokens,
    )
    return request if mem.output is None else typed_request(request, mem.output)


def typed_request(request: LlmRequest, spec: OutputSpec) -> LlmRequest:
    """``request`` asking for the typed result ``spec`` (each provider's codec asks its own way).

    Example:
        >>> spec = OutputSpec(name="Ack", schema={"type": "object"})
        >>> typed_request(LlmRequest(model="", messages=()), spec).response_name
        'Ack'
    """
    return attrs.evolve(
        request,
        response_schema=spec.schema,
        response_name=spec.name,
        response_description=spec.description,
    )


def summary_request(mem: PlanExecuteMemory) -> LlmRequest:
    """FINALIZE's optional summary request: no tools.

    Example:
        >>> summary_request(PlanExecuteMemory(input="x")).messages[-1].content[:9]
        'Summarize'
    """
    finalizer = mem.config.finalizer
    messages: tuple[Message, ...] = (_system(mem), *mem.messages, UserMessage(finalizer.prompt))
    request = LlmRequest(model=mem.config.model_for(finalizer.model), messages=messages)
    return request if mem.output is None else typed_request(request, mem.output)


def intake_compression_request(mem: PlanExecuteMemory, budget: int) -> LlmRequest:
    """INTAKE's request, in a thread over ``budget``: summarize the older turns (on the planner's model).

    Example:
        >>> from agentsm_fn.llm.conversation import Conversation
        >>> thread = Conversation().then([UserMessage("I am Ada.")]).then([UserMessage("Hi")])
        >>> request = intake_compression_request(PlanExecuteMemory(input="").start_turn(thread, "t"), 10)
        >>> request.messages[0].content.splitlines()[-1]
        'Conversation: [{"role": "user", "content": "I am Ada."}]'
    """
    prompt = thread_compression_prompt(mem.conversation, budget)
    return LlmRequest(model=mem.config.model_for(mem.config.planner.model), messages=(UserMessage(prompt),))
