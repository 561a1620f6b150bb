"""What the ReAct examples share: which LLM to ask, and how a run's end is reported.

Not an example itself: ``basic_agent.py``, ``multi_tool_agent.py``, ``human_approval_agent.py``
and the three provider examples import it (each is run as ``python examples/<name>.py``, so
this folder is on ``sys.path``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Mapping

import attrs
from returns.result import Failure, Success

from agentsm_fn.agents.react import ReactCompleted, RunResult
from agentsm_fn.llm import AnyLlmProvider
from agentsm_fn.providers import HttpProvider, anthropic_provider, ollama_provider, openai_provider


@attrs.frozen(kw_only=True)
class LlmChoice:
    """The LLM an example asks, its name, and the models to route large and small tasks to."""

    provider: AnyLlmProvider
    name: str
    large_model: str
    small_model: str


# ---- the one place a real provider plugs in ------------------------------------------------
def choose_llm(
    offline: bool, script: Callable[[], AnyLlmProvider], env: Mapping[str, str] = os.environ
) -> LlmChoice:
    """A real provider when a key or URL is in the environment (and not ``offline``), else the script.

    The provider's own default model is the small one; examples that route by task type
    set ``.model(choice.large_model)`` on the builder.
    """
    ollama_model = env.get("OLLAMA_MODEL", "llama3.2")
    real: tuple[tuple[str, str, Callable[[str], HttpProvider], str, str], ...] = (
        # (variable that enables it, name, factory, large model, small model)
        ("OPENAI_API_KEY", "openai", openai_provider, "gpt-4o", "gpt-4o-mini"),
        ("ANTHROPIC_API_KEY", "anthropic", anthropic_provider, "claude-sonnet-4-5", "claude-haiku-4-5"),
        ("OLLAMA_HOST", "ollama", ollama_provider, ollama_model, ollama_model),
    )
    for variable, name, factory, large, small in real:
        if not offline and env.get(variable):
            return LlmChoice(provider=factory(small), name=name, large_model=large, small_model=small)
    return LlmChoice(
        provider=script(), name="scripted", large_model="scripted-large", small_model="scripted-small"
    )


def finish(result: RunResult, show: Callable[[ReactCompleted], None]) -> int:
    """Show a completed run and return 0; explain a pause or a failure on stderr and return 1."""
    match result:
        case Success(ReactCompleted() as done):
            show(done)
            return 0
        case Success(paused):
            print(f"\nthe run paused unexpectedly: {paused!r}", file=sys.stderr)
        case Failure(error):
            print(f"\nthe run failed: {error.describe()}", file=sys.stderr)
    return 1
