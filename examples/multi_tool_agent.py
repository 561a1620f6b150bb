"""The multi-tool agent (seed 4.25): search, calculator and weather tools, a blacklist,
task type "calculation" with model routing, a custom AgentConfig, parallel tool calls,
and history compression every 3 steps.

Runs offline with a scripted LLM by default. With OPENAI_API_KEY, ANTHROPIC_API_KEY or
OLLAMA_HOST in the environment it asks that provider instead (``--offline`` forces
the script; which provider and models: ``choose_llm`` in ``_common.py``). The tools
themselves are local fakes in both cases. The summary counts agent steps (Planning
rounds, what ``max_steps`` limits) apart from state-machine transitions (the trace's
step column) and effect requests.

    python examples/multi_tool_agent.py
    python examples/multi_tool_agent.py --watch    # each transition and effect live, with durations
"""

from __future__ import annotations

import ast
import operator
import sys
from collections.abc import Callable, Sequence

from _common import choose_llm, finish

from agentsm_fn.agents.react import AgentConfig, ReactCompleted
from agentsm_fn.llm import AnyLlmProvider, LlmReply, ToolCall
from agentsm_fn.shell.react_agent import AgentBuilder
from agentsm_fn.shell.scripted_llm import ScriptedLlm
from agentsm_fn.tools import tool

TASK = "What is 15% of the population of Paris, and what is the weather there today?"

FACTS = {
    "population": "Paris had 2,102,650 inhabitants on 1 January 2023 (INSEE).",
    "weather": "Paris today: 18°C, light rain in the afternoon.",
}

_OPERATORS: dict[type, Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}


@tool(timeout=5.0)
def search(query: str) -> str:
    """Search the web for current facts (an offline knowledge base in this example).

    Args:
        query: What to look for.
    """
    hits = [fact for key, fact in FACTS.items() if key in query.lower()]
    return " ".join(hits) or f"No results for {query!r}."


def _evaluate(node: ast.expr) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
        return _OPERATORS[type(node.op)](_evaluate(node.left), _evaluate(node.right))
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        return -_evaluate(node.operand)
    raise ValueError(f"unsupported expression: {ast.unparse(node)}")


@tool(timeout=1.0)
def calculator(expression: str) -> str:
    """Evaluate an arithmetic expression (+ - * / ** and parentheses).

    Args:
        expression: For example "2102650 * 0.15".
    """
    value = _evaluate(ast.parse(expression, mode="eval").body)
    return f"{value:,.2f}"


@tool(timeout=5.0)
def weather(city: str) -> str:
    """Current weather for a city.

    Args:
        city: The city name.
    """
    return FACTS["weather"] if city.lower() == "paris" else f"No weather data for {city}."


def scripted() -> ScriptedLlm:
    """What a model would answer, for running without a network."""

    def calls(*pairs: tuple[str, dict[str, object]]) -> LlmReply:
        return LlmReply(tool_calls=tuple(ToolCall("", name, args) for name, args in pairs))

    return ScriptedLlm(
        [
            # 1: asks for the blacklisted weather tool -> ToolBlacklisted, back to Planning
            calls(("search", {"query": "population of Paris"}), ("weather", {"city": "Paris"})),
            # 2: two searches, run in parallel
            calls(("search", {"query": "population of Paris"}), ("search", {"query": "weather in Paris"})),
            # 3: the arithmetic
            calls(("calculator", {"expression": "2102650 * 0.15"})),
            # reflection after step 3 compresses the history
            LlmReply(content="Paris has 2,102,650 inhabitants; 15% is 315,397.50. Today: 18°C, light rain."),
            # 4: the answer
            LlmReply(
                content="15% of Paris's 2,102,650 inhabitants is about 315,398 people. "
                "The weather in Paris today is 18°C with light rain in the afternoon."
            ),
        ]
    )


def blacklisted_calls(done: ReactCompleted) -> list[str]:
    """The blacklisted tools the model asked for, as the trace's ToolBlacklisted rows name them."""
    return [
        name
        for entry in done.trace
        if entry.event == "ToolBlacklisted"
        for name in entry.data.partition(" blacklisted=")[2].split(",")
        if name
    ]


def show_counts(done: ReactCompleted, llm: AnyLlmProvider) -> None:
    """What the run did, each number with what it counts (the trace numbers transitions, not agent steps)."""
    requests = [e.event.removeprefix("request ") for e in done.trace if e.event.startswith("request ")]
    llm_calls, usage = requests.count("LlmCall"), done.memory.total_usage
    rows = (
        (
            "agent steps",
            done.memory.step,
            f"Planning rounds (max_steps={done.memory.config.max_steps}), 'step=' in the trace's data",
        ),
        ("transitions", done.snapshot.steps, "state-machine transitions, the trace's step column"),
        (
            "effects",
            len(requests),
            f"the trace's 'request' rows: {llm_calls} LLM calls (planning and "
            f"reflection), {len(requests) - llm_calls} tool runs",
        ),
    )
    print("\n=== COUNTS ===")
    for label, count, meaning in rows:
        print(f"  {label:<12}{count:>4}   {meaning}")
    scripted = " (the scripted LLM reports no usage)" if isinstance(llm, ScriptedLlm) else ""
    print(f"  tokens: {usage.input_tokens} in / {usage.output_tokens} out{scripted}")
    for name in blacklisted_calls(done):
        print(f"  refused: the model asked for {name!r}, which is blacklisted (the ToolBlacklisted row)")
    if isinstance(llm, ScriptedLlm):
        print(f"  models per LLM call: {[llm.model_for_call(n) for n in range(llm.call_count)]}")


def show(done: ReactCompleted, llm: AnyLlmProvider) -> None:
    print("\n=== FINAL ANSWER ===")
    print(done.answer)
    print("\n=== HISTORY (after compression) ===")
    for entry in done.memory.history:
        print(f"  step {entry.step}: {entry.tool.name}: {entry.observation}")
    show_counts(done, llm)
    print("\n=== TRACE ===")
    print(done.trace.render(width=160))


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    llm = choose_llm("--offline" in args, scripted)
    observer = None
    if "--watch" in args:
        try:
            from agentsm_fn.live import LiveView  # noqa: PLC0415 - rich is an optional extra
        except ImportError:
            print("--watch needs the live extra: pip install 'agentsm-fn[live]'", file=sys.stderr)
            return 2
        observer = LiveView()
    config = AgentConfig(
        max_steps=8,
        max_retries=2,
        confidence_threshold=0.3,
        reflect_every_n_steps=3,
        min_answer_length=30,
        parallel_tools=True,
    )
    agent = (
        AgentBuilder.new(TASK)
        .task_type("calculation")
        .system_prompt(
            "You are a precise assistant. Use search for facts and the calculator for arithmetic; "
            "never do arithmetic in your head. Answer in two sentences."
        )
        .llm(llm.provider)
        .config(config)
        .model(llm.large_model)
        .model_for("calculation", llm.small_model)
        .tools(search, calculator, weather)
        .blacklist_tool("weather")  # e.g. the weather API is down for maintenance
        .observe(observer)
        .build()
        .unwrap()
    )
    print(f"LLM: {llm.name}   task_type: calculation -> model {llm.small_model!r}")
    return finish(agent.run(), lambda done: show(done, llm.provider))


if __name__ == "__main__":
    raise SystemExit(main())
