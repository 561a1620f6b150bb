"""The plan-and-execute FSM (agent_runtime's AgentFSM): plan once, then execute tools in a bounded loop.

INTAKE -> PLAN -> DECIDE -> EXECUTE <-> OBSERVE -> LOOP_CHECK -> FINALIZE | HALT.
Runs offline with a scripted LLM by default. With OLLAMA_HOST in the environment it
asks Ollama instead (OLLAMA_MODEL, default llama3.2; PLAN goes to /api/generate with
the plan schema as ``format``, EXECUTE to /api/chat with tools). ``--offline``
forces the script.

    python examples/plan_execute_agent.py

``PLAN_AGENT`` is the agent as a durable program on an offline script, which
``agentsm-runs --db runs.db serve --agui plan_execute_agent:PLAN_AGENT`` serves over AG-UI.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence

from returns.result import Result, Success

from agentsm_fn.agents.plan_execute import (
    DEFAULT_PLAN_SCHEMA,
    PLAN_EXECUTE_MACHINE,
    Event,
    Fsm,
    OutputInvalidError,
    PlanExecuteCompleted,
    PlanExecuteError,
    PlanExecuteMemory,
    PlanExecutePolicy,
    PlannerConfig,
    State,
    plan_execute_failure,
    plan_execute_result,
)
from agentsm_fn.core.engine import replay
from agentsm_fn.durable import Durable
from agentsm_fn.llm import AsyncLlmProvider, LlmProvider, LlmReply, LlmRequest, ToolCall, ToolResultMessage
from agentsm_fn.providers import ollama_provider
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from agentsm_fn.shell.scripted_llm import ScriptedLlm

TASK = "Find best PDF library for Ruby"


def search(query: str) -> dict[str, str]:
    """Search the web for libraries, articles and documentation.

    Args:
        query: What to search for.
    """
    # In production: call a real search API here.
    return {"results": f"Search results for: {query}: prawn (pure Ruby, 4.6k stars), hexapdf, wicked_pdf"}


def read(url: str) -> dict[str, str]:
    """Read the text of a web page.

    Args:
        url: The page to read.
    """
    return {"content": f"Content from: {url}: Prawn is a fast, pure-Ruby PDF generation library."}


PLAN = {
    "goal": "Recommend the best PDF library for Ruby",
    "required_capabilities": ["search", "read"],
    "initial_steps": ["Search for Ruby PDF libraries", "Read about the strongest candidate", "Recommend"],
}
ANSWER = "Use Prawn: a mature, fast, pure-Ruby PDF library (hexapdf if you need editing)."
STEPS = (
    LlmReply(tool_calls=(ToolCall("", "search", {"query": "best PDF library for Ruby"}),)),
    LlmReply(tool_calls=(ToolCall("", "read", {"url": "https://github.com/prawnpdf/prawn"}),)),
    LlmReply(content=ANSWER),
)
"""What the executor answers, in turn: search, read, recommend."""


def scripted() -> ScriptedLlm:
    """What a model would answer, for running without a network."""
    return ScriptedLlm([LlmReply(content=json.dumps(PLAN)), *STEPS])


class ResearchScript:
    """The same answers for any number of runs: it replies from the request, not from a call count.

    The planner's request (it has a response schema) gets the plan; the executor's gets the
    step after the tool results the conversation holds. So every run a server starts gets them.
    """

    def complete(self, request: LlmRequest) -> LlmReply:
        if request.response_schema is not None:
            return LlmReply(content=json.dumps(PLAN))
        done = sum(isinstance(message, ToolResultMessage) for message in request.messages)
        return STEPS[min(done, len(STEPS) - 1)]


# ---- the one place a real provider plugs in ------------------------------------------------
def choose_llm(offline: bool) -> tuple[LlmProvider | AsyncLlmProvider, str]:
    """Ollama when OLLAMA_HOST is set (and not --offline), else the scripted LLM."""
    if not offline and os.environ.get("OLLAMA_HOST"):
        return ollama_provider(os.environ.get("OLLAMA_MODEL", "llama3.2")), "ollama"
    return scripted(), "scripted"


def build_agent(llm: LlmProvider | AsyncLlmProvider) -> AgentFSM:
    """The seed's usage: a planner with a schema and a prompt builder, a policy, tools, 20 iterations."""
    planner = PlannerConfig(
        schema=DEFAULT_PLAN_SCHEMA,
        prompt_template="Create a plan for: {input}\nContext: {state}",
    )
    return AgentFSM(
        provider=llm,
        planner=planner,
        policy=PlanExecutePolicy(forbidden_tools={"shell"}, max_tool_calls=10, time_limit_seconds=300),
        tools={"search": search, "read": read},
        max_iterations=20,
    )


def durable_for(agent: AgentFSM) -> Durable[State, Event, PlanExecuteMemory]:
    """The agent as a durable program, stored under this name; a halted run is stored as failed.

    Its template is the agent's start memory, so a run served over AG-UI (or started with
    ``POST /runs`` and only an ``input``) has the agent's config, tools and policy.
    """
    return Durable(
        name="plan_execute_agent:PLAN_AGENT",
        machine=agent.machine,
        shell=agent.shell,
        failure=plan_execute_failure,
        result=plan_execute_result,
        template=agent.memory(""),
    )


PLAN_AGENT = durable_for(build_agent(ResearchScript()))
"""What `agentsm-runs serve --agui` serves (offline: every run gets the script's answers)."""


def show_fsm(fsm: Fsm) -> None:
    print(f"\nstate: {fsm.state_name} (terminal: {fsm.terminal})")
    print("history:")
    for transition in fsm.history:
        print(f"  {transition.as_dict()}")
    print("audit log:")
    for entry in fsm.audit_log:
        print(f"  [{entry.iteration}] {entry.state.name:<10} {entry.kind:<10} {entry.message}")


def report(outcome: Result[PlanExecuteCompleted, PlanExecuteError]) -> Fsm:
    if isinstance(outcome, Success):
        done: PlanExecuteCompleted = outcome.unwrap()
        print(f"\n=== FINAL RESULT (done: {done.result.done}) ===\n{done.result.answer}")
        plan = done.fsm.memory.plan
        if plan is not None:
            print(f"plan: {plan.goal}: {list(plan.initial_steps)}")
        return done.fsm
    error: PlanExecuteError = outcome.failure()
    print(f"\n=== {type(error).__name__} ===\n{error.describe()}")
    if isinstance(error, OutputInvalidError):  # shared with the ReAct agent: it keeps the snapshot
        assert error.snapshot is not None
        return Fsm(error.snapshot)
    return error.fsm


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    llm, name = choose_llm("--offline" in args)
    agent = build_agent(llm)
    print(f"LLM: {name}\ntask: {TASK}")
    outcome = agent.run(TASK)
    fsm = report(outcome)
    show_fsm(fsm)
    print(f"\ntokens: {fsm.usage.total_tokens}")
    print(fsm.trace.render(width=140))
    same = replay(PLAN_EXECUTE_MACHINE, agent.start(TASK), fsm.journal) == Success(fsm.snapshot)
    print(f"\nthe run replays from its journal with no LLM and no tools: {same}")

    if name == "scripted":
        # The seed's "Inspecting FSM State": a planner that answers prose halts the run.
        print("\n--- a planner that does not answer JSON ---")
        prose = AgentFSM(provider=ScriptedLlm([LlmReply(content="First I'd search, then read.")]))
        halted = report(prose.run(TASK))
        show_fsm(halted)
    return 0 if isinstance(outcome, Success) and same else 1


if __name__ == "__main__":
    raise SystemExit(main())
