"""The minimal agent (seed 4.24): one search tool, task type "research".

Runs offline with a scripted LLM by default. With OPENAI_API_KEY, ANTHROPIC_API_KEY or
OLLAMA_HOST in the environment it asks that provider instead (``--offline`` forces
the script; which provider and model: ``choose_llm`` in ``_common.py``).

    python examples/basic_agent.py
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from _common import choose_llm, finish

from agentsm_fn.agents.react import ReactCompleted
from agentsm_fn.llm import LlmReply, ToolCall
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm

TASK = "What is the capital of France and what is its population?"


def search(query: str) -> str:
    """Search the web for current information. Use for any factual queries.

    Args:
        query: The search query.
    """
    # In production: call a real search API here.
    return (
        f"Search results for '{query}': Paris is the capital of France with a population "
        "of approximately 2.1 million in the city proper."
    )


def scripted() -> ScriptedLlm:
    """What a model would answer, for running without a network."""
    return ScriptedLlm(
        [
            LlmReply(tool_calls=(ToolCall("", "search", {"query": "capital of France population"}),)),
            LlmReply(
                content="The capital of France is Paris, with about 2.1 million people in the city proper."
            ),
        ]
    )


def show(done: ReactCompleted) -> None:
    print("\n=== FINAL ANSWER ===")
    print(done.answer)
    print("\n=== TRACE ===")
    print(done.trace.render(width=160))


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    llm = choose_llm("--offline" in args, scripted)
    agent = (
        AgentBuilder.new(TASK)
        .task_type("research")
        .system_prompt("You are a helpful research assistant. Use the search tool to find information.")
        .llm(llm.provider)
        .max_steps(10)
        .tool(
            "search",
            "Search the web for current information. Use for any factual queries.",
            {
                "type": "object",
                "properties": {"query": {"type": "string", "description": "The search query"}},
                "required": ["query"],
            },
            search,
        )
        .build()
        .unwrap()
    )
    print(f"LLM: {llm.name}")
    return finish(agent.run(), show)


if __name__ == "__main__":
    raise SystemExit(main())
