"""The minimal agent (seed 4.24): one search tool, task type "research".

Runs offline with a scripted LLM by default. With OPENAI_API_KEY, ANTHROPIC_API_KEY or
OLLAMA_HOST in the environment it asks that provider instead (``--offline`` forces
the script).

    python examples/basic_agent.py
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

from returns.result import Failure, Success

from agentsm_fn.agents.react import AgentBuilder, Completed, Provider
from agentsm_fn.llm import LlmReply, ToolCall
from agentsm_fn.providers import anthropic_provider, ollama_provider, openai_provider
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


# ---- the one place a real provider plugs in ------------------------------------------------
def choose_llm(offline: bool) -> tuple[Provider, str]:
    """A real provider when a key or URL is in the environment, else the scripted LLM."""
    if not offline and os.environ.get("OPENAI_API_KEY"):
        return openai_provider("gpt-4o-mini"), "openai"
    if not offline and os.environ.get("ANTHROPIC_API_KEY"):
        return anthropic_provider("claude-haiku-4-5"), "anthropic"
    if not offline and os.environ.get("OLLAMA_HOST"):
        return ollama_provider(os.environ.get("OLLAMA_MODEL", "llama3.2")), "ollama"
    return scripted(), "scripted"


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    llm, name = choose_llm("--offline" in args)
    agent = (
        AgentBuilder.new(TASK)
        .task_type("research")
        .system_prompt("You are a helpful research assistant. Use the search tool to find information.")
        .llm(llm)
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
    print(f"LLM: {name}")
    match agent.run():
        case Success(Completed() as done):
            print("\n=== FINAL ANSWER ===")
            print(done.answer)
            print("\n=== TRACE ===")
            print(done.trace.render(width=160))
            return 0
        case Success(paused):
            print(f"Agent paused unexpectedly: {paused!r}", file=sys.stderr)
        case Failure(error):
            print(f"Agent failed: {error.describe()}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())
