"""The plan-and-execute FSM through the Ollama provider against aimock: PLAN asks /api/generate with the plan
schema as ``format`` (structured output), EXECUTE runs tools through /api/chat."""

from __future__ import annotations

from returns.result import Success

from agentsm_fn.agents.plan_execute import DEFAULT_PLAN_SCHEMA, PlanExecuteCompleted, PlannerConfig
from agentsm_fn.llm.json import thaw
from agentsm_fn.shell.plan_execute_agent import AgentFSM
from tests.providers.conftest import Aimock, Sleeps
from tests.providers.peer import make, validate_journal

TASK = "Find best PDF library for Ruby"


def search(query: str) -> dict[str, str]:
    """Search the web.

    Args:
        query: What to search for.
    """
    return {"results": f"results for {query}: prawn, hexapdf"}


def read(url: str) -> dict[str, str]:
    """Read a page.

    Args:
        url: The page.
    """
    return {"content": f"{url}: Prawn is a fast, pure-Ruby PDF library."}


def test_plan_execute_plans_with_structured_output_then_executes_tools(aimock: Aimock) -> None:
    provider = make("ollama", aimock, Sleeps())
    agent = AgentFSM(
        provider=provider,
        planner=PlannerConfig(
            schema=DEFAULT_PLAN_SCHEMA, prompt_template="Create a plan for: {input}\nContext: {state}"
        ),
        tools={"search": search, "read": read},
        max_iterations=20,
    )
    outcome = agent.run(TASK)
    assert isinstance(outcome, Success)
    done = outcome.unwrap()
    assert isinstance(done, PlanExecuteCompleted) and done.result.done
    assert done.result.answer == "Use Prawn: a mature, fast, pure-Ruby PDF library."
    plan = done.fsm.memory.plan
    assert plan is not None and plan.goal == "Recommend the best PDF library for Ruby"
    sent = validate_journal(aimock)
    assert [path for path, _ in sent] == ["/api/generate", "/api/chat", "/api/chat", "/api/chat"]
    generate = sent[0][1]
    assert generate["format"] == thaw(DEFAULT_PLAN_SCHEMA) and generate["stream"] is False
    assert str(generate["prompt"]).startswith("Create a plan for: Find best PDF library for Ruby")
    last_chat = sent[-1][1]
    assert "tool_name" in str(last_chat["messages"]) and "Prawn is a fast" in str(last_chat["messages"])
